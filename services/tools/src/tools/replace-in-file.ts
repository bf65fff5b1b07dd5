import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import type { SearchReplaceBlock } from "../edits/apply-search-replace.js";
import { parseSearchReplaceBlocks } from "../edits/parse-search-replace.js";
import { runEditOffThread } from "../edits/run-edit-off-thread.js";
import { fileChange, loadTarget } from "./file-plan-helpers.js";

export const replaceInFileTool = defineTool({
  name: "replace_in_file",
  description:
    "Change part of a file with SEARCH/REPLACE blocks: `<<<<<<< SEARCH`, the file's current lines exactly, `=======`, the new lines, `>>>>>>> REPLACE`. Only trailing whitespace or a uniform indent shift is forgiven; a miss shows the closest lines. Blocks apply in order, each to the text the earlier ones produced, all or nothing. An empty SEARCH creates a file. Or give one `search` and `replace`.",
  parameters: z.strictObject({
    path: pathArg().describe("File path relative to the workspace root"),
    diff: z.string().max(1024 * 1024).optional().describe("One or more SEARCH/REPLACE blocks"),
    search: z.string().max(1024 * 1024).optional().describe("Instead of `diff`: the exact current text to replace"),
    replace: z.string().max(1024 * 1024).optional().describe("Instead of `diff`: the new text"),
  }),
  aliases: { blocks: "diff", edits: "diff", old_str: "search", old_string: "search", old_text: "search", find: "search", new_str: "replace", new_string: "replace", new_text: "replace", replacement: "replace" },
  kind: "write",
  readOnly: false,
  parallelSafe: false,
  async plan(args, context) {
    let blocks: SearchReplaceBlock[];
    if (args.diff !== undefined) {
      if (args.search !== undefined || args.replace !== undefined) return { ok: false, error: "VALIDATION: Give either `diff` (SEARCH/REPLACE blocks) or `search` with `replace`, not both.", metadata: { error_code: "VALIDATION" } };
      const parsed = parseSearchReplaceBlocks(args.diff);
      if (!parsed.ok) return { ok: false, error: `EDIT_MALFORMED: ${parsed.error}`, metadata: { error_code: "EDIT_MALFORMED" } };
      blocks = parsed.blocks;
    } else if (args.search !== undefined && args.replace !== undefined) {
      blocks = [{ search: args.search, replace: args.replace }];
    } else {
      return { ok: false, error: "VALIDATION: `diff` is required (SEARCH/REPLACE blocks), or both `search` and `replace`.", metadata: { error_code: "VALIDATION" } };
    }
    const loaded = await loadTarget(context, args.path);
    if (!loaded.ok) return { ok: false, error: loaded.error, ...(loaded.code !== undefined ? { metadata: { error_code: loaded.code } } : {}) };
    const partial = args.diff === undefined;
    const outcome = await runEditOffThread(
      { kind: "search_replace", before: loaded.before, blocks, path: loaded.target.relative, options: { partial } },
      { signal: context.signal, onOffThread: (bytes) => context.log.debug({ bytes }, "edit matching runs off the event loop") },
    );
    if (!outcome.ok) return { ok: false, error: `${outcome.code}: ${outcome.error}`, metadata: { error_code: outcome.code } };
    const loose = outcome.levels.filter((level) => level !== "exact" && level !== "create");
    const summary = [
      `${outcome.created ? "Created" : "Edited"} ${loaded.target.relative}: ${blocks.length} block(s) applied${loose.length > 0 ? ` (matched loosely: ${[...new Set(loose)].join(", ")})` : ""}.`,
      ...outcome.notices,
    ].join("\n");
    return { ok: true, changes: [fileChange(loaded.target, loaded.before, outcome.after)], summary, metadata: { match_levels: outcome.levels, created: outcome.created } };
  },
});
