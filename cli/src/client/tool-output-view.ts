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
  diff_preview?: string;
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
 * A finished tool call as `aide run` shows it: a ✓/✗ line, then an applied edit as a coloured
 * unified diff, or the output's first lines with "… N more lines (--verbose)"; `verbose` shows all
 * the event holds. Every string is rendered for the screen here, whatever the orchestrator did.
 */
export function describeCompletedTool(event: CompletedToolView, style: Style, options: { verbose: boolean; diffShown: boolean }): string {
  const mark = event.is_error ? style.red("  ✗ ") : style.green("  ✓ ");
  if (event.output_preview === undefined) return mark + renderForScreen(String(event.summary ?? "")).slice(0, 400);
  const lines = renderForScreen(event.output_preview).replace(/\r\n/g, "\n").split("\n");
  const untrimmed = lines.length;
  while (lines.length > 1 && lines[lines.length - 1].trim() === "") lines.pop();
  const out = [mark + lines[0]];
  if (event.diff_preview !== undefined && !options.diffShown) {
    for (const line of renderDiff(renderForScreen(event.diff_preview), style).split("\n")) out.push(indent(line));
  }
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
