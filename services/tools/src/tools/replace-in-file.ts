import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import type { SearchReplaceBlock } from "../edits/apply-search-replace.js";
import { parseSearchReplaceBlocks } from "../edits/parse-search-replace.js";
import { runEditOffThread } from "../edits/run-edit-off-thread.js";
import { missingPathHint } from "../files/missing-path-hint.js";
import { fileChange, loadTarget } from "./file-plan-helpers.js";

export const replaceInFileTool = defineTool({
  name: "replace_in_file",
  description:
    "Change part of a file with SEARCH/REPLACE blocks: `<<<<<<< SEARCH`, the file's current lines exactly, `=======`, the new lines, `>>>>>>> REPLACE`. Only trailing whitespace or a uniform indent shift is forgiven; a miss shows the closest lines. Blocks apply in order, each to the text the earlier ones produced, all or nothing. An empty SEARCH creates a file. Or give one `search` and `replace`.",
  // Either `diff` or `search` with `replace`, never a mix: a union, so the rule is in the JSON
  // Schema (`anyOf`) the model and the tool-call grammar see, not only in this tool's code.
  parameters: z.union([
    z.strictObject({
      path: pathArg().describe("File path relative to the workspace root"),
      diff: z
        .string()
        .max(1024 * 1024)
        .describe("One or more SEARCH/REPLACE blocks"),
    }),
    z.strictObject({
      path: pathArg().describe("File path relative to the workspace root"),
      search: z
        .string()
        .max(1024 * 1024)
        .describe("Instead of `diff`: the exact current text to replace"),
      replace: z
        .string()
        .max(1024 * 1024)
        .describe("Instead of `diff`: the new text"),
    }),
  ]),
  aliases: {
    blocks: "diff",
    edits: "diff",
    old_str: "search",
    old_string: "search",
    old_text: "search",
    find: "search",
    new_str: "replace",
    new_string: "replace",
    new_text: "replace",
    replacement: "replace",
  },
  kind: "write",
  readOnly: false,
  parallelSafe: false,
  async plan(args, context) {
    let blocks: SearchReplaceBlock[];
    if ("diff" in args) {
      const parsed = parseSearchReplaceBlocks(args.diff);
      if (!parsed.ok) return { ok: false, error: `EDIT_MALFORMED: ${parsed.error}`, metadata: { error_code: "EDIT_MALFORMED" } };
      blocks = parsed.blocks;
    } else {
      blocks = [{ search: args.search, replace: args.replace }];
    }
    const loaded = await loadTarget(context, args.path);
    if (!loaded.ok) return { ok: false, error: loaded.error, ...(loaded.code !== undefined ? { metadata: { error_code: loaded.code } } : {}) };
    const partial = !("diff" in args);
    const outcome = await runEditOffThread(
      { kind: "search_replace", before: loaded.before, blocks, path: loaded.target.relative, options: { partial } },
      { signal: context.signal, onOffThread: (bytes) => context.log.debug({ bytes }, "edit matching runs off the event loop") },
    );
    if (!outcome.ok) {
      const hint = outcome.code === "FILE_NOT_FOUND" ? await missingPathHint(context.workspace, loaded.target.relative, context.signal) : "";
      return { ok: false, error: `${outcome.code}: ${outcome.error}${hint === "" ? "" : ` ${hint}`}`, metadata: { error_code: outcome.code } };
    }
    const loose = outcome.levels.filter((level) => level !== "exact" && level !== "create");
    const summary = [
      `${outcome.created ? "Created" : "Edited"} ${loaded.target.relative}: ${blocks.length} block(s) applied${loose.length > 0 ? ` (matched loosely: ${[...new Set(loose)].join(", ")})` : ""}.`,
      ...outcome.notices,
    ].join("\n");
    return { ok: true, changes: [fileChange(loaded.target, loaded.before, outcome.after)], summary, metadata: { match_levels: outcome.levels, created: outcome.created } };
  },
});
