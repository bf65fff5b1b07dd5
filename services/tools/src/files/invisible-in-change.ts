import { structuredPatch } from "diff";
import { scanInvisible, type InvisibleFlag } from "./invisible-characters.js";

/** Invisible characters on the lines a change adds (existing ones are not the call's doing). */
export function invisibleInAddedLines(change: { path: string; before: Buffer | null; after: Buffer }): InvisibleFlag[] {
  const before = change.before === null ? "" : change.before.toString("utf8");
  const patch = structuredPatch(change.path, change.path, before, change.after.toString("utf8"), undefined, undefined, { context: 0, timeout: 2000 });
  // Too big to diff in time: flag every invisible character of the new content.
  if (patch === undefined) return scanInvisible(change.after.toString("utf8"), change.path);
  const flags: InvisibleFlag[] = [];
  for (const hunk of patch.hunks) {
    let line = hunk.newStart;
    for (const text of hunk.lines) {
      if (text.startsWith("+")) {
        for (const flag of scanInvisible(text.slice(1), change.path)) flags.push({ ...flag, line });
        line += 1;
      } else if (!text.startsWith("-") && !text.startsWith("\\")) line += 1;
    }
  }
  return flags.slice(0, 50);
}
