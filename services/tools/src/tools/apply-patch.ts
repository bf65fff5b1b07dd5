import { z } from "zod";
import { defineTool, type FileChange, type FilePlan } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import { parseUnifiedDiff, type FilePatch } from "../edits/parse-unified-diff.js";
import { runEditOffThread } from "../edits/run-edit-off-thread.js";
import type { MatchLevel } from "../edits/edit-outcome.js";
import { fileChange, loadTarget } from "./file-plan-helpers.js";

function refused(code: string, error: string, extra: Record<string, unknown> = {}): FilePlan {
  return { ok: false, error: `${code}: ${error}`, metadata: { error_code: code, ...extra } };
}

function describe(patch: FilePatch, from: string, to: string): string {
  const hunks = `${patch.hunks.length} hunk${patch.hunks.length === 1 ? "" : "s"}`;
  switch (patch.operation) {
    case "delete":
      return `deleted ${to}`;
    case "rename":
      return `renamed ${from} → ${to}${patch.hunks.length > 0 ? ` (${hunks})` : ""}`;
    case "create":
      return `created ${to}`;
    case "modify":
      return `patched ${to} (${hunks})`;
    default: {
      const unreachable: never = patch.operation;
      return unreachable;
    }
  }
}

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description:
    "Apply a unified diff (`--- a/path`, `+++ b/path`, `@@` hunks of ' ', '-', '+' lines) to one or more files, all or nothing. Context and removed lines must match exactly (trailing whitespace or a uniform indent shift forgiven); line numbers are hints. `--- /dev/null` creates a file, `+++ /dev/null` deletes one, `rename from`/`rename to` renames one.",
  parameters: z.strictObject({
    diff: z
      .string()
      .min(1)
      .max(1024 * 1024)
      .describe("The unified diff"),
    path: pathArg().optional().describe("The file the diff applies to, when the diff has no ---/+++ headers"),
  }),
  aliases: { unified_diff: "diff", changes: "diff" },
  kind: "write",
  readOnly: false,
  parallelSafe: false,
  async plan(args, context) {
    const parsed = parseUnifiedDiff(args.diff, args.path);
    if (!parsed.ok) return refused("EDIT_MALFORMED", parsed.error);
    const changes: FileChange[] = [];
    const done: string[] = [];
    const levels: MatchLevel[] = [];
    const operations: Array<Record<string, string>> = [];
    const touched = new Set<string>();
    for (const patch of parsed.files) {
      const source = await loadTarget(context, patch.fromPath ?? patch.path);
      if (!source.ok) return { ok: false, error: source.error, ...(source.code !== undefined ? { metadata: { error_code: source.code } } : {}) };
      const target = patch.fromPath === undefined ? source : await loadTarget(context, patch.path);
      if (!target.ok) return { ok: false, error: target.error, ...(target.code !== undefined ? { metadata: { error_code: target.code } } : {}) };
      const from = source.target.relative;
      const to = target.target.relative;
      for (const path of new Set([from, to])) {
        if (touched.has(path)) return refused("EDIT_MALFORMED", `The diff has two sections for ${path}; merge them into one. Nothing was changed.`, { path });
        touched.add(path);
      }
      if (patch.operation === "rename") {
        if (from === to) return refused("EDIT_MALFORMED", `The diff renames ${from} to itself. Nothing was changed.`, { path: from });
        if (target.before !== null) return refused("EDIT_FILE_EXISTS", `The diff renames ${from} to ${to}, but ${to} already exists. Nothing was changed.`, { path: to });
      }
      const outcome = await runEditOffThread(
        { kind: "file_patch", before: source.before, patch: { ...patch, path: to, ...(patch.fromPath !== undefined ? { fromPath: from } : {}) } },
        { signal: context.signal, onOffThread: (bytes) => context.log.debug({ bytes }, "edit matching runs off the event loop") },
      );
      if (!outcome.ok) return refused(outcome.code, outcome.error, { path: from });
      switch (patch.operation) {
        case "delete":
          changes.push({ ...fileChange(source.target, source.before, Buffer.alloc(0)), operation: "delete" });
          break;
        case "rename":
          changes.push({ ...fileChange(target.target, null, outcome.after), renamedFrom: from });
          changes.push({ ...fileChange(source.target, source.before, Buffer.alloc(0)), operation: "delete" });
          break;
        default:
          changes.push(fileChange(target.target, target.before, outcome.after));
      }
      operations.push({ path: to, operation: patch.operation, ...(patch.operation === "rename" ? { from } : {}) });
      levels.push(...outcome.levels);
      done.push(describe(patch, from, to));
    }
    const loose = [...new Set(levels.filter((l) => l !== "exact" && l !== "create"))];
    const summary = `${done.join("; ").replace(/^./, (c) => c.toUpperCase())}.${loose.length > 0 ? ` Some hunks matched loosely (${loose.join(", ")}); check the result.` : ""}`;
    return { ok: true, changes, summary, metadata: { match_levels: levels, operations } };
  },
});
