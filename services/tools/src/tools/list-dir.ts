import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { booleanArg, integerArg, pathArg } from "../framework/argument-types.js";
import { escapeInvisible } from "../files/invisible-characters.js";
import { missingPathHint } from "../files/missing-path-hint.js";
import { walkEntries } from "../files/walk-entries.js";

export const listDirTool = defineTool({
  name: "list_dir",
  description: "List the entries of a directory (directories end with `/`). Set `recursive` to list the tree below it (dependency and build folders are shown but not expanded).",
  parameters: z.strictObject({
    path: pathArg().default(".").describe("Directory relative to the workspace root; default the root"),
    recursive: booleanArg().default(false).describe("List everything below, not just the direct entries"),
    max_entries: integerArg({ min: 1, max: 2000 }).default(400).describe("Stop after this many entries"),
  }),
  aliases: { depth: "recursive", limit: "max_entries" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  async execute(args, context) {
    const opened = await context.workspace.openDirectory(args.path);
    const target = { relative: opened.relative };
    if (opened.kind === "missing") {
      const hint = await missingPathHint(context.workspace, target.relative, context.signal);
      return { isError: true, output: `No directory at ${target.relative}.${hint === "" ? "" : ` ${hint}`}`, metadata: { error_code: "FILE_NOT_FOUND" } };
    }
    if (opened.kind === "not-directory") return { isError: true, output: `${target.relative} is a file, not a directory; use read_file.`, metadata: { error_code: "NOT_A_DIRECTORY" } };
    const { entries, capped } = walkEntries(context.workspace, opened.handle, { recursive: args.recursive, maxEntries: args.max_entries, signal: context.signal });
    const where = target.relative === "." ? "the workspace root" : target.relative;
    if (entries.length === 0) return { output: `${where} is empty.`, metadata: { path: target.relative, entries: 0 } };
    const tail = capped ? `\n\n(Stopped at ${args.max_entries} entries; list a subdirectory or raise max_entries.)` : "";
    return { output: escapeInvisible(entries.join("\n")) + tail, metadata: { path: target.relative, entries: entries.length, capped } };
  },
});
