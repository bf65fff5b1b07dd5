import { normalizePath } from "./call-key.js";

export type TurnProgress = { changedPaths: string[]; readPaths: string[] };

export type StallVerdict = { stalled: boolean; reason?: string };

/**
 * Detects a run going in circles: `turns` consecutive turns (default 4) in which nothing in the
 * workspace changed, no new file was read, and some file was read again. Exploring new files or
 * changing any file resets it.
 */
export class StallDetector {
  private readonly everRead = new Set<string>();
  private staleTurns = 0;
  private readonly rereads = new Set<string>();

  constructor(private readonly turns = 4) {}

  observe(turn: TurnProgress): StallVerdict {
    const changed = turn.changedPaths.map(normalizePath);
    const read = turn.readPaths.map(normalizePath);
    const newReads = read.filter((path) => !this.everRead.has(path));
    const repeated = read.filter((path) => this.everRead.has(path));
    for (const path of read) this.everRead.add(path);
    if (changed.length > 0 || newReads.length > 0) {
      this.staleTurns = 0;
      this.rereads.clear();
      return { stalled: false };
    }
    this.staleTurns += 1;
    for (const path of repeated) this.rereads.add(path);
    if (this.staleTurns < this.turns || this.rereads.size === 0) return { stalled: false };
    const names = [...this.rereads].slice(0, 5).join(", ");
    return {
      stalled: true,
      reason:
        `No file has changed in the last ${this.staleTurns} turns and the same files were read again (${names}). ` +
        "Stop re-reading: make the change you have in mind, run something that gives new information, or finish with what you have.",
    };
  }

  reset(): void {
    this.staleTurns = 0;
    this.rereads.clear();
  }
}
