import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg, pathArg } from "../framework/argument-types.js";
import type { CodeIntelligence } from "../code/code-intelligence.js";
import type { CodeDefinition } from "../code/code-definition.js";
import { supportedExtensions } from "../code/grammar-table.js";

const describe = (definition: CodeDefinition) => `  ${definition.startLine}-${definition.endLine} ${definition.kind} ${definition.name}: ${definition.signature}`;
const asMetadata = (definition: CodeDefinition) => ({ name: definition.name, kind: definition.kind, start_line: definition.startLine, end_line: definition.endLine });

/** `list_code_definitions`: the definitions of one file, or of every parsed file under a folder. */
export function createListCodeDefinitionsTool(code: CodeIntelligence) {
  return defineTool({
    name: "list_code_definitions",
    description: "List the classes, functions, methods, types and exported constants of a file or of the files under a folder, with line ranges and first lines.",
    parameters: z.strictObject({
      path: pathArg().default(".").describe("File or folder relative to the workspace root; default the root"),
      max_definitions: integerArg({ min: 1, max: 1000 }).default(200).describe("Stop after this many definitions"),
    }),
    aliases: { file: "path", limit: "max_definitions" },
    kind: "read",
    readOnly: true,
    parallelSafe: true,
    timeoutMs: 120_000,
    async execute(args, context) {
      const opened = await context.workspace.openDirectory(args.path);
      if (opened.kind === "missing") return { isError: true, output: `No file or folder at ${opened.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
      let files: Array<{ path: string; language: string; definitions: CodeDefinition[] }>;
      let parsed = 0;
      if (opened.kind === "directory") {
        opened.handle.close();
        const { files: all, stats } = await code.current(context.workspace, context.signal);
        parsed = stats.parsed;
        const prefix = opened.relative === "." ? "" : `${opened.relative}/`;
        files = [...all]
          .filter(([path]) => path.startsWith(prefix))
          .sort(([left], [right]) => (left < right ? -1 : 1))
          .map(([path, tags]) => ({ path, language: tags.language, definitions: tags.definitions }));
      } else {
        const content = await context.workspace.readFile(opened.relative);
        if (content === null) return { isError: true, output: `No file at ${opened.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
        const outcome = await code.cache.tagsOf(opened.relative, content);
        if (!outcome.ok) {
          const known = outcome.reason === "unsupported" ? ` Known types: ${supportedExtensions.join(" ")}.` : "";
          return { isError: true, output: `${outcome.message}.${known} Use read_file or search_files instead.`, metadata: { error_code: "LANGUAGE_UNSUPPORTED", ...code.counters() } };
        }
        parsed = outcome.cached ? 0 : 1;
        files = [{ path: opened.relative, language: outcome.tags.language, definitions: outcome.tags.definitions }];
      }
      const lines: string[] = [];
      let shown = 0;
      let cut = false;
      const metadataFiles: Array<Record<string, unknown>> = [];
      for (const file of files) {
        if (file.definitions.length === 0) continue;
        if (shown >= args.max_definitions) {
          cut = true;
          break;
        }
        const room = args.max_definitions - shown;
        const taken = file.definitions.slice(0, room);
        if (taken.length < file.definitions.length) cut = true;
        shown += taken.length;
        lines.push(`${file.path} (${file.language})`, ...taken.map(describe));
        metadataFiles.push({ path: file.path, language: file.language, definitions: taken.map(asMetadata) });
      }
      const metadata = { files: metadataFiles, definitions_shown: shown, truncated: cut, parsed, ...code.counters() };
      if (lines.length === 0) return { output: `No definitions found in ${opened.relative}.`, metadata };
      const note = cut ? `\n(Stopped at ${shown} definitions; list a smaller folder or raise max_definitions.)` : "";
      return { output: `${lines.join("\n")}${note}`, metadata };
    },
  });
}
