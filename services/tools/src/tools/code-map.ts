import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg } from "../framework/argument-types.js";
import type { CodeIntelligence } from "../code/code-intelligence.js";
import { rankFiles } from "../code/rank-files.js";
import { renderCodeMap } from "../code/render-code-map.js";

/** `code_map`: the repository's most referenced files and their key definitions, within a token budget. */
export function createCodeMapTool(code: CodeIntelligence) {
  return defineTool({
    name: "code_map",
    description: "A map of the repository: the most referenced files first (and those the focus names), each with its key definitions as `line: signature`, within a token budget.",
    parameters: z.strictObject({
      focus_paths: z.array(z.string().min(1)).max(50).default([]).describe("Files or folders the task is about; they and what they use rank first"),
      focus_identifiers: z.array(z.string().min(1)).max(50).default([]).describe("Names from the task (functions, classes); files defining them rank first"),
      budget_tokens: integerArg({ min: 64, max: 16_000 }).default(1000).describe("Size of the map in tokens (about 4 characters each); default 1000"),
    }),
    aliases: { focus: "focus_identifiers", paths: "focus_paths", identifiers: "focus_identifiers", max_tokens: "budget_tokens", budget: "budget_tokens" },
    kind: "read",
    readOnly: true,
    parallelSafe: true,
    timeoutMs: 120_000,
    async execute(args, context) {
      const { files, stats } = await code.current(context.workspace, context.signal);
      const ranked = rankFiles(files, { paths: args.focus_paths, identifiers: args.focus_identifiers });
      const map = renderCodeMap(ranked, files, args.budget_tokens);
      const metadata = {
        files_indexed: stats.files,
        files_read: stats.read,
        parsed: stats.parsed,
        removed: stats.removed,
        index_incomplete: stats.incomplete,
        map_files: map.files,
        map_tokens: map.tokens,
        omitted_files: map.omittedFiles,
        ...code.counters(),
      };
      if (map.files.length === 0)
        return { output: files.size === 0 ? "No source files with a known type in this workspace." : `No file fits in ${args.budget_tokens} tokens; raise budget_tokens.`, metadata };
      const note = map.omittedFiles > 0 ? `\n(${map.omittedFiles} more file(s) with definitions left out for the budget; list_code_definitions shows any file or folder.)` : "";
      return { output: `${map.text}${note}`, metadata };
    },
  });
}
