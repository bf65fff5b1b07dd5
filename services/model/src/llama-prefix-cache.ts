import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { LlamaContextSequence, Token } from "node-llama-cpp";

/** A saved sequence state: the tokens it holds and the file node-llama-cpp wrote them to. */
interface Entry {
  tokens: readonly Token[];
  file: string;
  bytes: number;
  lastUsed: number;
}

export interface PrefixCacheOptions {
  logger: Logger;
  /** Saved states kept per loaded model (least recently used first out). */
  maxEntries?: number;
  /** Fewest shared tokens worth loading a state for. */
  minTokens?: number;
  /**
   * Bytes of saved states kept per loaded model (default 256 MiB; the files are in the temp folder,
   * a tmpfs in the service's sandbox, so in memory). A state is the whole sequence's KV cache:
   * ~23 KB a token for SmolLM2-135M, ~130 KB for an 8B model with grouped-query attention.
   */
  maxBytes?: number;
}

function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return index;
}

/**
 * A prefix cache shared across the sessions of one loaded model. node-llama-cpp 3.21.1 cannot
 * copy one sequence's KV cells into another (llama.cpp's seq_cp is not in its bindings), but it
 * saves and loads a sequence's state (`saveStateToFile`, `loadStateFromFile`): after a session's
 * first turn the sequence's state is saved here. A session whose prompt shares at least
 * `minTokens` tokens more with a saved state than with its own sequence (a new session whose
 * prompt starts with the system prompt and tool list of every session of that model and tier, or
 * one whose sequence a one-off request had to take) loads it into its own sequence; the completion
 * then erases what differs and evaluates only the rest. Only for models whose cache allows erasing a tail
 * (`needsCheckpoints` false: not SWA or recurrent models without a full cache); any failure
 * clears the sequence and the prompt is evaluated whole, as without the cache.
 */
export class PrefixCache {
  private readonly entries: Entry[] = [];
  private readonly dir: string;
  private clock = 0;
  private files = 0;
  private readonly maxEntries: number;
  private readonly minTokens: number;
  private readonly maxBytes: number;

  constructor(private readonly options: PrefixCacheOptions) {
    this.dir = mkdtempSync(join(tmpdir(), "aide-prefix-"));
    this.maxEntries = options.maxEntries ?? 4;
    this.minTokens = options.minTokens ?? 64;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  }

  private best(wanted: readonly Token[]): { entry: Entry; shared: number } | undefined {
    let found: { entry: Entry; shared: number } | undefined;
    for (const entry of this.entries) {
      const shared = commonPrefix(entry.tokens, wanted);
      if (!found || shared > found.shared) found = { entry, shared };
    }
    return found;
  }

  /**
   * Loads into `sequence` the saved state sharing the longest prefix with `wanted` (the prompt's
   * tokens as the sequence will hold them), when it shares at least `minTokens` more than the
   * sequence itself holds: a fresh sequence (a session's first turn), or one whose contents were
   * replaced (a one-off request that had no sequence of its own). Returns the tokens shared (0:
   * nothing loaded).
   */
  async restore(sequence: LlamaContextSequence, wanted: readonly Token[]): Promise<number> {
    if (sequence.needsCheckpoints) return 0;
    const found = this.best(wanted);
    const own = commonPrefix(sequence.contextTokens, wanted);
    if (!found || found.shared < own + this.minTokens) return 0;
    try {
      if (sequence.nextTokenIndex !== 0) await sequence.clearHistory();
      await sequence.loadStateFromFile(found.entry.file, { acceptRisk: true });
      found.entry.lastUsed = ++this.clock;
      return found.shared;
    } catch (error) {
      this.options.logger.warn({ err: error }, "loading a cached prompt prefix failed; the prompt is evaluated whole");
      await sequence.clearHistory().catch(() => undefined);
      return 0;
    }
  }

  /**
   * Saves the sequence's state (after a first turn) unless a saved state already covers nine tenths
   * of `prompt` (the prompt's tokens), so sessions with one shared prefix keep one file.
   */
  async remember(sequence: LlamaContextSequence, prompt: readonly Token[]): Promise<void> {
    if (sequence.needsCheckpoints || prompt.length < this.minTokens) return;
    const found = this.best(prompt);
    if (found && found.shared >= prompt.length * 0.9) return;
    const file = join(this.dir, `state-${++this.files}.bin`);
    let bytes: number;
    try {
      bytes = (await sequence.saveStateToFile(file)).fileSize;
    } catch (error) {
      this.options.logger.warn({ err: error }, "saving a prompt prefix failed; later sessions evaluate it themselves");
      rmSync(file, { force: true });
      return;
    }
    this.entries.push({ tokens: [...sequence.contextTokens], file, bytes, lastUsed: ++this.clock });
    const total = () => this.entries.reduce((sum, entry) => sum + entry.bytes, 0);
    while (this.entries.length > this.maxEntries || (this.entries.length > 0 && total() > this.maxBytes)) {
      const oldest = this.entries.reduce((a, b) => (a.lastUsed <= b.lastUsed ? a : b));
      this.entries.splice(this.entries.indexOf(oldest), 1);
      // A load that already opened the file keeps reading it; a later one fails and evaluates whole.
      rmSync(oldest.file, { force: true });
    }
  }

  /** Deletes the saved states (the model is unloaded). */
  dispose(): void {
    this.entries.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
