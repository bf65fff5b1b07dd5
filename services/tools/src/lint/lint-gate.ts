export type LintVerdict = { status: "ok" | "skipped"; checker: string } | { status: "failed"; checker: string; message: string };

export interface LintGate {
  /** Checks the syntax of `content` for `relativePath`'s type. Must not throw. */
  check(relativePath: string, content: Buffer, signal?: AbortSignal): Promise<LintVerdict>;
}
