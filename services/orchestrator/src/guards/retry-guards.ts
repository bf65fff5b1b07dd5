import { callKey, callPath, COMMAND_TOOLS, normalizePath, WRITE_TOOLS, type GuardedCall } from "./call-key.js";

export type GuardedResult = { is_error: boolean; changed_paths: string[]; output: string };

export type GuardDecision = { blocked: false } | { blocked: true; message: string };

/** Tools whose output is a diagnostic of the running system (a changed one is new information). */
const DIAGNOSTIC_TOOLS = new Set(["run_command", "process_start", "process_poll"]);

/**
 * Reduces an output to what matters for "is this the same failure?": numbers, hex ids, timings and
 * whitespace vary between identical failures and are folded away.
 */
export function diagnosticFingerprint(output: string): string {
  const folded = output
    .toLowerCase()
    .replace(/\b[0-9a-f]{7,}\b/g, "#")
    .replace(/\d+(\.\d+)?/g, "#")
    .replace(/\s+/g, " ")
    .trim();
  return folded.length > 4000 ? `${folded.slice(0, 2000)}…${folded.slice(-2000)}` : folded;
}

type FailedCommand = { epoch: number; fingerprint: string };

/**
 * Retry guards of seed 002: an identical failed write is blocked until its content changes (or a
 * mutation changes the workspace under it); an unchanged failed command is blocked until a mutation
 * or a materially different diagnostic; an identical successful write can be skipped. One instance
 * per run; it holds no I/O and never throws.
 */
export class RetryGuards {
  private readonly failedWrites = new Map<string, string>();
  private readonly failedCommands = new Map<string, FailedCommand>();
  private readonly successfulWrites = new Map<string, string | undefined>();
  private readonly seenDiagnostics = new Set<string>();
  private epoch = 0;

  check(call: GuardedCall): GuardDecision {
    const key = callKey(call);
    if (WRITE_TOOLS.has(call.name) && this.failedWrites.has(key)) {
      return {
        blocked: true,
        message:
          `This exact ${call.name} already failed: ${this.failedWrites.get(key)}\n` + "Sending it again will fail the same way. Read the file to see its current content, then send a different edit.",
      };
    }
    const failed = COMMAND_TOOLS.has(call.name) ? this.failedCommands.get(key) : undefined;
    if (failed !== undefined && failed.epoch === this.epoch) {
      return {
        blocked: true,
        message:
          "This exact command already failed and nothing has changed since (no file was modified, no new diagnostic). " +
          "Running it again will fail the same way. Fix the cause first (edit the code or the command), or run a different command to investigate.",
      };
    }
    return { blocked: false };
  }

  /** True when this write already succeeded and nothing has touched its file since: skip it. */
  isDuplicateSuccessfulWrite(call: GuardedCall): boolean {
    return WRITE_TOOLS.has(call.name) && this.successfulWrites.has(callKey(call));
  }

  record(call: GuardedCall, result: GuardedResult): void {
    const key = callKey(call);
    const changed = result.changed_paths.map(normalizePath);
    const mutated = !result.is_error && changed.length > 0;
    if (mutated) this.onMutation(changed);
    if (WRITE_TOOLS.has(call.name)) this.recordWrite(call, key, result);
    if (DIAGNOSTIC_TOOLS.has(call.name)) this.recordDiagnostic(call, key, result);
  }

  private onMutation(changed: string[]): void {
    this.epoch += 1;
    this.failedWrites.clear();
    for (const [key, path] of this.successfulWrites) {
      if (path === undefined || changed.includes(path)) this.successfulWrites.delete(key);
    }
  }

  private recordWrite(call: GuardedCall, key: string, result: GuardedResult): void {
    if (result.is_error) {
      const firstLine = result.output.split("\n").find((line) => line.trim() !== "") ?? "it failed";
      this.failedWrites.set(key, firstLine.slice(0, 300));
      this.successfulWrites.delete(key);
    } else {
      this.failedWrites.delete(key);
      this.successfulWrites.set(key, callPath(call));
    }
  }

  private recordDiagnostic(call: GuardedCall, key: string, result: GuardedResult): void {
    const fingerprint = diagnosticFingerprint(result.output);
    const isNew = !this.seenDiagnostics.has(fingerprint);
    this.seenDiagnostics.add(fingerprint);
    // A command may rewrite any file; without exact changed paths, forget what was written.
    if (COMMAND_TOOLS.has(call.name) && !result.is_error && result.changed_paths.length === 0) {
      this.successfulWrites.clear();
    }
    const previous = this.failedCommands.get(key);
    const materiallyDifferent = isNew && (result.is_error || call.name === "process_poll");
    if (materiallyDifferent && (previous === undefined || previous.fingerprint !== fingerprint)) this.epoch += 1;
    if (!COMMAND_TOOLS.has(call.name)) return;
    if (result.is_error) this.failedCommands.set(key, { epoch: this.epoch, fingerprint });
    else this.failedCommands.delete(key);
  }
}
