import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { PATTERN_MAX_CHARS, booleanArg, pathArg } from "../framework/argument-types.js";
import type { SearchOutcome, SearchQuery } from "../search/search-types.js";

const maxFiles = 50;

export interface SearchEngines {
  ripgrep?: (query: SearchQuery) => Promise<SearchOutcome>;
  javascript: (query: SearchQuery) => Promise<SearchOutcome>;
}

/** The search tool with its engines injected (ripgrep when present, the JS walk otherwise). */
export function createSearchFilesTool(engines: SearchEngines) {
  return defineTool({
    name: "search_files",
    description:
      "Find which files contain a regular expression (or a literal string): lists up to 50 files with their match counts, most matches first. Then read_file the ones that matter. Honors .gitignore.",
    parameters: z.strictObject({
      pattern: z
        .string()
        .min(1)
        .max(PATTERN_MAX_CHARS, `must be at most ${PATTERN_MAX_CHARS} characters: a few words or a short expression that find the place`)
        .describe("Regular expression (ripgrep/Rust syntax), or plain text with literal=true"),
      path: pathArg().default(".").describe("Directory or file to search, relative to the workspace root"),
      literal: booleanArg().default(false).describe("Treat the pattern as plain text"),
      case_insensitive: booleanArg().default(false).describe("Ignore case"),
      include: z.string().max(PATTERN_MAX_CHARS).optional().describe("Only files matching this glob, e.g. `*.ts` or `src/**/*.py`"),
    }),
    aliases: { glob: "include", file_pattern: "include", ignore_case: "case_insensitive", fixed_strings: "literal" },
    kind: "read",
    readOnly: true,
    parallelSafe: true,
    timeoutMs: 60_000,
    async execute(args, context) {
      const target = await context.workspace.resolve(args.path);
      if (target.stats === null) return { isError: true, output: `No file or directory at ${target.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
      const query: SearchQuery = {
        root: context.workspace.root,
        workspace: context.workspace,
        target: target.relative,
        pattern: args.pattern,
        literal: args.literal,
        caseInsensitive: args.case_insensitive,
        include: args.include,
        signal: context.signal,
        timeoutMs: 45_000,
      };
      const outcome = engines.ripgrep !== undefined ? await engines.ripgrep(query) : await engines.javascript(query);
      if (!outcome.ok) return { isError: true, output: outcome.error };
      const hits = [...outcome.hits].sort((a, b) => b.matches - a.matches || (a.path < b.path ? -1 : 1));
      const total = hits.reduce((sum, hit) => sum + hit.matches, 0);
      const metadata = { files: hits.length, matches: total, engine: outcome.engine, capped: hits.length > maxFiles };
      if (hits.length === 0) return { output: `No matches for ${JSON.stringify(args.pattern)} in ${target.relative === "." ? "the workspace" : target.relative}.`, metadata };
      const shown = hits.slice(0, maxFiles).map((hit) => `${hit.path} (${hit.matches})`);
      const header = `${total} match${total === 1 ? "" : "es"} in ${hits.length} file${hits.length === 1 ? "" : "s"}${hits.length > maxFiles ? ` (showing the ${maxFiles} with the most; narrow the pattern or the path)` : ""}:`;
      return { output: `${header}\n${shown.join("\n")}`, metadata };
    },
  });
}
