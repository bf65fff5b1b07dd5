import type { Diagnostic } from "./diagnostic.js";

export type CheckOutcome = { ok: true; results: Diagnostic[][] } | { ok: false; timedOut: boolean; message: string; workerPid?: number };

/** A warm type checker per workspace root: the diagnostics of one file for each of its texts. */
export interface Checker {
  /** The name results carry (`typescript`, `pyright`, `go vet`). */
  readonly source: string;
  /** The diagnostics of workspace file `path` for each text in `versions`. Never throws. */
  check(root: string, path: string, versions: string[], signal?: AbortSignal): Promise<CheckOutcome>;
  close(): void;
}
