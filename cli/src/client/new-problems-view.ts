import { z } from "zod";
import { renderForScreen } from "@aide/contracts";
import type { Style } from "./terminal-style.js";

/** `tool.completed` metadata.diagnostics as the tools service writes it after an edit (services/tools, edit-diagnostics.ts). */
const EditDiagnosticsSchema = z.object({
  source: z.string().max(200),
  new_problems: z.number().int().nonnegative(),
  problems: z
    .array(z.object({ path: z.string(), line: z.number().int(), column: z.number().int(), code: z.string(), message: z.string() }))
    .max(50)
    .default([]),
  pending: z.boolean().optional(),
  unavailable: z.boolean().optional(),
  timed_out: z.boolean().optional(),
  type_checked: z.boolean().optional(),
  unavailable_reason: z.string().max(100).optional(),
});

const indent = (line: string) => `    ${line}`;

/**
 * The problems an edit introduced, for under its diff: a heading with the count and the checker,
 * one `path:line:col code message` line each (at most what the event lists), and a word when no
 * type check ran (checker still starting, stopped, or absent). Nothing when the edit added no
 * problems and was type-checked, or when the metadata is not diagnostics. Rendered for the screen.
 */
export function describeNewProblems(metadata: unknown, style: Style): string | undefined {
  const parsed = EditDiagnosticsSchema.safeParse(metadata);
  if (!parsed.success) return undefined;
  const diagnostics = parsed.data;
  const source = renderForScreen(diagnostics.source);
  if (diagnostics.pending === true) return indent(style.dim(`diagnostics (${source}) not ready yet: the checker is still starting`));
  if (diagnostics.unavailable === true) return indent(style.yellow(`no diagnostics (${source}${diagnostics.timed_out === true ? ": timed out" : ""})`));
  const caveat = diagnostics.type_checked === false ? indent(style.dim(`syntax only, not type-checked (${renderForScreen(diagnostics.unavailable_reason ?? "no checker")})`)) : undefined;
  if (diagnostics.new_problems === 0) return caveat;
  const count = diagnostics.new_problems;
  const lines = [indent(style.yellow(style.bold(`${count} new problem${count === 1 ? "" : "s"} (${source}):`)))];
  for (const problem of diagnostics.problems) {
    lines.push(
      indent(
        `  ${style.red(renderForScreen(`${problem.path}:${problem.line}:${problem.column}`))} ${renderForScreen(problem.code)} ${renderForScreen(problem.message).replace(/\s+/g, " ").slice(0, 200)}`,
      ),
    );
  }
  if (count > diagnostics.problems.length) lines.push(indent(style.dim(`  … ${count - diagnostics.problems.length} more (diagnostics lists them)`)));
  if (caveat !== undefined) lines.push(caveat);
  return lines.join("\n");
}

const notePrefixes = ["New problems this edit introduced (", "No new problems (", "(Diagnostics not ready:", "(No diagnostics:"];

/**
 * A finished edit's preview without the diagnostics note the tools service appended for the model
 * (aide run shows the problems under the diff instead, from the metadata): the lines from the note
 * on are dropped and the line count lowered to match.
 */
export function withoutDiagnosticsNote<T extends { output_preview?: string; output_lines?: number }>(event: T): T {
  if (event.output_preview === undefined) return event;
  const lines = event.output_preview.split("\n");
  const at = lines.findIndex((line, index) => index > 0 && notePrefixes.some((prefix) => line.startsWith(prefix)));
  if (at < 0) return event;
  const dropped = lines.length - at;
  return { ...event, output_preview: lines.slice(0, at).join("\n"), ...(event.output_lines !== undefined ? { output_lines: Math.max(at, event.output_lines - dropped) } : {}) };
}
