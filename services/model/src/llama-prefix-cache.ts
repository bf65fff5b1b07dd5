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

/** First-turn prompts remembered for a sequence that cannot erase a tail. */
const SEEN_PROMPTS = 8;
/** Tokens evaluated per step when a shared prefix is evaluated ahead of a completion (an abort is seen between steps). */
const EXTEND_CHUNK = 256;

function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return index;
}

/**
 * A prefix cache shared across the sessions of one loaded model. node-llama-cpp 3.21.1 cannot
 * copy one sequence's KV cells into another (llama.cpp's seq_cp is not in its bindings), but it
 * saves and loads a sequence's state (`saveStateToFile`, `loadStateFromFile`).
 *
 * Models whose cache can erase a tail (`needsCheckpoints` false): after a session's first turn the
 * sequence's state is saved here. A session whose prompt shares at least `minTokens` tokens more
 * with a saved state than with its own sequence (a new session whose prompt starts with the system
 * prompt and tool list of every session of that model and tier, or one whose sequence a one-off
 * request had to take) loads it into its own sequence; the completion then erases what differs and
 * evaluates only the rest.
 *
 * Models whose cache cannot (sliding-window attention like Gemma 2/3 and gpt-oss, recurrent and
 * hybrid models): a loaded state is only of use if the new prompt extends it whole, so what is
 * saved is exactly a shared prefix. A first turn's prompt is remembered (tokens only); a later
 * first turn that shares at least `minTokens` tokens with a remembered one evaluates that shared
 * prefix first, saves the state at that point and then goes on; every first turn after it loads
 * that state and evaluates only what follows. The first two sessions of a prefix pay as without
 * the cache. Any failure clears the sequence and the prompt is evaluated whole, as without the
 * cache.
 */
export class PrefixCache {
  private readonly entries: Entry[] = [];
  /** Recent first-turn prompts of sequences that cannot erase a tail: what a later one may share. */
  private readonly seen: Token[][] = [];
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

  /**
   * The saved state sharing the longest prefix with `wanted`; with `whole`, only states that
   * `wanted` extends whole, leaving at least one token to evaluate (a sequence that cannot erase a tail).
   */
  private best(wanted: readonly Token[], whole = false): { entry: Entry; shared: number } | undefined {
    let found: { entry: Entry; shared: number } | undefined;
    for (const entry of this.entries) {
      const shared = commonPrefix(entry.tokens, wanted);
      if (whole && (shared !== entry.tokens.length || shared >= wanted.length)) continue;
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
    const found = this.best(wanted, sequence.needsCheckpoints);
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
   * After a first turn: saves the sequence's state unless a saved state already covers nine tenths
   * of `prompt` (the prompt's tokens), so sessions with one shared prefix keep one file. A sequence
   * that cannot erase a tail only has its prompt remembered (see `extend`).
   */
  async remember(sequence: LlamaContextSequence, prompt: readonly Token[]): Promise<void> {
    if (prompt.length < this.minTokens) return;
    if (sequence.needsCheckpoints) {
      this.seen.unshift([...prompt]);
      this.seen.length = Math.min(this.seen.length, SEEN_PROMPTS);
      return;
    }
    const found = this.best(prompt);
    if (found && found.shared >= prompt.length * 0.9) return;
    await this.save(sequence);
  }

  /**
   * Before a first turn on a sequence that cannot erase a tail: when `wanted` shares at least
   * `minTokens` tokens more with a remembered first turn than the sequence holds (after `restore`),
   * evaluates that shared prefix into the sequence (in chunks, stopping when `signal` aborts) and
   * saves the state at that point for the first turns after it. Returns the tokens evaluated; the
   * completion evaluates the rest as usual.
   */
  async extend(sequence: LlamaContextSequence, wanted: readonly Token[], signal: AbortSignal): Promise<number> {
    if (!sequence.needsCheckpoints) return 0;
    const held = sequence.contextTokens.length;
    if (commonPrefix(sequence.contextTokens, wanted) !== held) return 0;
    let shared = 0;
    for (const prompt of this.seen) shared = Math.max(shared, commonPrefix(prompt, wanted));
    shared = Math.min(shared, wanted.length - 1);
    if (shared < held + this.minTokens) return 0;
    try {
      for (let at = held; at < shared; at += EXTEND_CHUNK) {
        if (signal.aborted) return at - held;
        await sequence.evaluateWithoutGeneratingNewTokens(wanted.slice(at, Math.min(shared, at + EXTEND_CHUNK)));
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, "evaluating a shared prompt prefix failed; the prompt is evaluated whole");
      await sequence.clearHistory().catch(() => undefined);
      return 0;
    }
    await this.save(sequence);
    return shared - held;
  }

  private async save(sequence: LlamaContextSequence): Promise<void> {
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
    this.seen.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
