import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import type { TypeScriptChecker } from "../code/typescript-checker.js";
import { formatDiagnostic, hasChecker } from "../code/edit-diagnostics.js";

const maxShown = 50;

/** `diagnostics`: the type checker's problems in one file as it is on disk now. */
export function createDiagnosticsTool(checker: TypeScriptChecker) {
  return defineTool({
    name: "diagnostics",
    description: "Type-check one TypeScript file (with its project's tsconfig) and list its problems as `path:line:column code message`.",
    parameters: z.strictObject({
      path: pathArg().describe("A .ts/.tsx file relative to the workspace root"),
    }),
    aliases: { file: "path" },
    kind: "read",
    readOnly: true,
    parallelSafe: true,
    timeoutMs: 120_000,
    async execute(args, context) {
      const resolved = await context.workspace.resolve(args.path);
      if (!hasChecker(resolved.relative)) {
        return { isError: true, output: `No checker for ${resolved.relative}: diagnostics type-checks .ts, .tsx, .mts and .cts files. Run the project's own checker with run_command instead.`, metadata: { error_code: "LANGUAGE_UNSUPPORTED" } };
      }
      const content = await context.workspace.readFile(resolved.relative);
      if (content === null) return { isError: true, output: `No file at ${resolved.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
      const outcome = await checker.check(context.workspace.root, resolved.relative, [content.toString("utf8")], context.signal);
      if (!outcome.ok) {
        return { isError: true, output: `No diagnostics: ${outcome.message}.`, metadata: { error_code: outcome.timedOut ? "TIMEOUT" : "TOOL_FAILED", timed_out: outcome.timedOut } };
      }
      const found = outcome.results[0];
      const metadata = { source: "typescript", problems: found.length, errors: found.filter((d) => d.severity === "error").length };
      if (found.length === 0) return { output: `${resolved.relative}: no problems (typescript).`, metadata };
      const shown = found.slice(0, maxShown).map((diagnostic) => formatDiagnostic(resolved.relative, diagnostic).trimStart());
      const more = found.length > shown.length ? `\n(${found.length - shown.length} more)` : "";
      return { output: `${shown.join("\n")}${more}`, metadata };
    },
  });
}
