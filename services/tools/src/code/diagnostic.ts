/** One problem a checker reports in a file: 1-based line and column. */
export interface Diagnostic {
  line: number;
  column: number;
  /** The checker's own code, e.g. `TS2322`. */
  code: string;
  severity: "error" | "warning";
  message: string;
  /** The source line it points at, trimmed: with the message, what tells an old problem from a new one after lines moved. */
  text: string;
}
