import { applySearchReplace, type EditOutcome } from "./apply-search-replace.js";
import { hunkToBlock, type FilePatch } from "./parse-unified-diff.js";
import { decodeDocument, encodeDocument, replaceLines } from "./text-document.js";
import { findLazyComment } from "./lazy-comments.js";
import type { MatchLevel } from "./find-match.js";

/**
 * Applies one file's hunks in order, each located by its content (the `@@` numbers are only
 * hints), through the same matcher as SEARCH/REPLACE. All hunks or nothing.
 */
export function applyFilePatch(before: Buffer | null, patch: FilePatch): EditOutcome {
  if (patch.deleted) return { ok: false, refusal: "no_change", error: `The diff deletes ${patch.path}; deleting files is not supported by apply_patch. Use run_command with rm if it must go.` };
  if (patch.created && before !== null && before.length > 0) {
    return { ok: false, refusal: "file_exists", error: `The diff creates ${patch.path} (--- /dev/null), but it already exists. Diff against its current content instead.` };
  }
  let current = patch.created ? null : before;
  if (!patch.created && before === null) return { ok: false, refusal: "missing_file", error: `${patch.path} does not exist. A diff that creates a file starts with \`--- /dev/null\`.` };
  const levels: MatchLevel[] = [];
  const notices: string[] = [];
  for (let index = 0; index < patch.hunks.length; index += 1) {
    const hunk = patch.hunks[index];
    const block = hunkToBlock(hunk, "context");
    if (block.search === "") {
      const lazy = findLazyComment(block.replace, "");
      if (lazy !== undefined) return { ok: false, refusal: "lazy_comment", error: `The diff adds \`${lazy}\`, which stands for code it does not repeat. Write out the complete lines.` };
      if (current === null) {
        current = Buffer.from(block.replace, "utf8");
        levels.push("exact");
        continue;
      }
      if (hunk.oldStart === undefined) {
        return { ok: false, refusal: "no_match", error: `Hunk ${index + 1} for ${patch.path} only adds lines and has neither context lines nor an @@ header saying where. Add a few unchanged lines around it (prefixed with a space).` };
      }
      const document = decodeDocument(current);
      const at = Math.min(Math.max(hunk.oldStart, 0), document.lines.length);
      current = encodeDocument(replaceLines(document, at, at, block.replace.replace(/\n$/, "").split("\n"), document.eol));
      levels.push("exact");
      continue;
    }
    // Unprefixed lines are uncertain: context first, then additions, and no context trimming then.
    const hasBare = hunk.lines.some((l) => l.type === "bare");
    let outcome = applySearchReplace(current, [block], patch.path, { trimContext: !hasBare });
    if (!outcome.ok && outcome.refusal === "no_match" && hasBare) {
      const retried = applySearchReplace(current, [hunkToBlock(hunk, "add")], patch.path, { trimContext: false });
      if (retried.ok) {
        notices.push(`Hunk ${index + 1}: lines without a +/-/space prefix were taken as additions.`);
        outcome = retried;
      }
    }
    if (!outcome.ok) {
      const prefix = patch.hunks.length > 1 ? `Hunk ${index + 1} of ${patch.hunks.length}: ` : "";
      return { ...outcome, error: prefix + outcome.error.replace("The SEARCH text", "The hunk's context and removed lines") };
    }
    current = outcome.after;
    levels.push(...outcome.levels);
    notices.push(...outcome.notices);
  }
  if (current === null) return { ok: false, refusal: "no_change", error: `The diff has no lines for ${patch.path}.` };
  return { ok: true, after: current, levels, created: before === null, notices };
}
