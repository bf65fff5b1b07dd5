import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The servers' states, refusals and ignored workspace files as JSON, for `aide doctor` and
 * `aide mcp list` (they read it without a bus request). Written atomically; a failure is logged.
 */
export function stateWriter(file: string, snapshot: () => unknown, onError: (error: Error) => void): () => void {
  let pending: NodeJS.Immediate | undefined;
  return () => {
    if (pending) return;
    pending = setImmediate(() => {
      pending = undefined;
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, `${JSON.stringify({ updated_at: new Date().toISOString(), pid: process.pid, ...(snapshot() as object) }, null, 2)}\n`, { mode: 0o600 });
        renameSync(temporary, file);
      } catch (error) {
        onError(error as Error);
      }
    });
  };
}
