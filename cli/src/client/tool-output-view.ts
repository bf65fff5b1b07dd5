import { renderForScreen } from "@aide/contracts";
import { renderDiff, type Style } from "./terminal-style.js";

/** How many lines of a tool's output `aide run` shows before collapsing the rest. */
export const collapsedLines = 6;

export interface CompletedToolView {
  tool: string;
  is_error: boolean;
  summary?: string;
  output_preview?: string;
  output_lines?: number;
}

export interface CheckpointDiffView {
  files: Array<{ path: string; status: string; binary: boolean; diff?: string; truncated?: boolean }>;
  omitted?: number;
}

/**
 * What a step changed, as unified diffs (the checkpoint before it to the one after it): added
 * lines green, removed red when colour is on. Paths and diffs are rendered for the screen.
 */
export function describeCheckpointDiff(diff: CheckpointDiffView, style: Style): string {
  const out: string[] = [];
  for (const file of diff.files) {
    const path = renderForScreen(file.path);
    if (file.binary || file.diff === undefined) {
      out.push(indent(style.bold(`${file.status} ${path}${file.binary ? " (binary)" : " (diff left out: too large)"}`)));
      continue;
    }
    const lines = renderDiff(renderForScreen(file.diff).replace(/\n$/, ""), style)
      .split("\n")
      .filter((line) => !/^=+$/.test(line) && !line.startsWith("Index: "));
    for (const line of lines) out.push(indent(line));
    if (file.truncated) out.push(indent(style.dim("… diff cut here (aide restore or the panel show all of it)")));
  }
  if (diff.omitted) out.push(indent(style.dim(`… ${diff.omitted} more changed files`)));
  return out.join("\n");
}

const indent = (line: string) => `    ${line}`;

/** A call's arguments on one line: a body the events carry as `{ bytes, sha256 }` is shown as its size. */
export function describeToolArgs(args: Record<string, unknown> | undefined, max = 160): string {
  const shown = Object.fromEntries(
    Object.entries(args ?? {}).map(([key, value]) => {
      const body = value as { bytes?: unknown; sha256?: unknown } | null;
      return [key, body !== null && typeof body === "object" && typeof body.bytes === "number" && typeof body.sha256 === "string" ? `‹${body.bytes} bytes›` : value];
    }),
  );
  return renderForScreen(JSON.stringify(shown)).slice(0, max);
}

/**
 * A finished tool call as `aide run` shows it: a ✓/✗ line, then the output's first lines with
 * "… N more lines (--verbose)"; `verbose` shows all the event holds. Every string is rendered for
 * the screen here, whatever the orchestrator did.
 */
export function describeCompletedTool(event: CompletedToolView, style: Style, options: { verbose: boolean }): string {
  const mark = event.is_error ? style.red("  ✗ ") : style.green("  ✓ ");
  if (event.output_preview === undefined) return mark + renderForScreen(String(event.summary ?? "")).slice(0, 400);
  const lines = renderForScreen(event.output_preview).replace(/\r\n/g, "\n").split("\n");
  const untrimmed = lines.length;
  while (lines.length > 1 && lines[lines.length - 1].trim() === "") lines.pop();
  const out = [mark + lines[0]];
  const rest = lines.slice(1);
  const shown = options.verbose ? rest : rest.slice(0, collapsedLines - 1);
  for (const line of shown) out.push(indent(style.dim(line)));
  // Trailing blank lines are not counted as hidden output.
  const total = Math.max((event.output_lines ?? untrimmed) - (untrimmed - lines.length), lines.length);
  const hidden = total - 1 - shown.length;
  if (hidden > 0) {
    out.push(indent(style.dim(options.verbose ? `… ${hidden} more lines (not in the event; the model read them all)` : `… ${hidden} more lines (--verbose)`)));
  }
  return out.join("\n");
}
