import { z } from "zod";
import { defineTool, type FileChange } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import { parseUnifiedDiff } from "../edits/parse-unified-diff.js";
import { applyFilePatch } from "../edits/apply-unified-diff.js";
import { fileChange, loadTarget } from "./file-plan-helpers.js";

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description:
    "Apply a unified diff (`--- a/path`, `+++ b/path`, `@@` hunks with ' ', '-', '+' lines) to one or more files. Hunks are located by their content; line numbers are only hints. A file is created with `--- /dev/null`.",
  parameters: z.strictObject({
    diff: z.string().min(1).max(1024 * 1024).describe("The unified diff"),
    path: pathArg().optional().describe("The file the diff applies to, when the diff has no ---/+++ headers"),
  }),
  aliases: { unified_diff: "diff", changes: "diff" },
  kind: "write",
  readOnly: false,
  parallelSafe: false,
  async plan(args, context) {
    const parsed = parseUnifiedDiff(args.diff, args.path);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const changes: FileChange[] = [];
    const notices: string[] = [];
    const levels: string[] = [];
    for (const patch of parsed.files) {
      const loaded = await loadTarget(context, patch.path);
      if (!loaded.ok) return { ok: false, error: loaded.error };
      if (changes.some((c) => c.path === loaded.target.relative)) return { ok: false, error: `The diff has two sections for ${loaded.target.relative}; merge them into one.` };
      const outcome = applyFilePatch(loaded.before, patch);
      if (!outcome.ok) return { ok: false, error: `${outcome.error}\nNothing was changed.`, metadata: { refusal: outcome.refusal, path: loaded.target.relative } };
      changes.push(fileChange(loaded.target, loaded.before, outcome.after));
      notices.push(...outcome.notices);
      levels.push(...outcome.levels);
    }
    const loose = [...new Set(levels.filter((l) => l !== "exact"))];
    const summary = [`Patched ${changes.map((c) => c.path).join(", ")}${loose.length > 0 ? ` (some hunks matched loosely: ${loose.join(", ")})` : ""}.`, ...notices].join("\n");
    return { ok: true, changes, summary, metadata: { match_levels: levels } };
  },
});
