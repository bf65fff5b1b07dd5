import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import type { CheckerSet } from "../code/checker-set.js";
import { formatDiagnostic } from "../code/edit-diagnostics.js";

const maxShown = 50;

/** `diagnostics`: the type checker's problems in one file as it is on disk now. */
export function createDiagnosticsTool(checkers: CheckerSet) {
  return defineTool({
    name: "diagnostics",
    description: "Type-check one TypeScript (tsconfig), Python (pyright) or Go (go vet) file and list its problems as `path:line:column code message`.",
    parameters: z.strictObject({
      path: pathArg().describe("A .ts/.tsx, .py or .go file relative to the workspace root"),
    }),
    aliases: { file: "path" },
    kind: "read",
    readOnly: true,
    parallelSafe: true,
    timeoutMs: 120_000,
    async execute(args, context) {
      const resolved = await context.workspace.resolve(args.path);
      const chosen = checkers.forPath(resolved.relative);
      if (chosen === undefined) {
        return {
          isError: true,
          output: `No checker for ${resolved.relative}: diagnostics checks ${checkers.describe()} files. Run the project's own checker with run_command instead.`,
          metadata: { error_code: "LANGUAGE_UNSUPPORTED" },
        };
      }
      const { checker, unavailable } = chosen;
      const content = await context.workspace.readFile(resolved.relative);
      if (content === null) return { isError: true, output: `No file at ${resolved.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
      const outcome = await checker.check(context.workspace.root, resolved.relative, [content.toString("utf8")], context.signal);
      if (!outcome.ok) {
        return {
          isError: true,
          output: `No diagnostics: ${outcome.message}.`,
          metadata: { error_code: outcome.timedOut ? "TIMEOUT" : "TOOL_FAILED", timed_out: outcome.timedOut, source: checker.source },
        };
      }
      const found = outcome.results[0];
      const metadata = {
        source: checker.source,
        problems: found.length,
        errors: found.filter((d) => d.severity === "error").length,
        // type_checked: a real checker (tsc, pyright, go vet) ran, not the syntax fallback.
        ...(unavailable !== undefined ? { type_checked: false, unavailable_reason: unavailable.reason } : { type_checked: true }),
      };
      const caveat = unavailable !== undefined ? `\n${unavailable.message}` : "";
      if (found.length === 0) {
        const summary = unavailable !== undefined ? `${resolved.relative}: no syntax errors (${checker.source}); not type-checked.` : `${resolved.relative}: no problems (${checker.source}).`;
        return { output: `${summary}${caveat}`, metadata };
      }
      const shown = found.slice(0, maxShown).map((diagnostic) => formatDiagnostic(resolved.relative, diagnostic).trimStart());
      const more = found.length > shown.length ? `\n(${found.length - shown.length} more)` : "";
      return { output: `${shown.join("\n")}${more}${caveat}`, metadata };
    },
  });
}
