import type { Workspace } from "../jail/workspace.js";
import { walkEntries } from "./walk-entries.js";
import { escapeInvisible } from "./invisible-characters.js";

/** How much of the workspace a hint looks at, and how much of it it shows. */
const WALK_LIMIT = 2000;
const SAME_NAME_SHOWN = 5;
const FOLDER_SHOWN = 20;

/**
 * What a model that named a missing path needs to do better next: the files of the workspace
 * with the same name elsewhere, and what the nearest folder that does exist holds. A model that
 * guessed `src/calendar_utils.py` for a file at the root, or copied a path from an example, then
 * sees the real one. Empty when the workspace cannot be walked.
 */
export async function missingPathHint(workspace: Workspace, relative: string, signal: AbortSignal): Promise<string> {
  const root = await workspace.openDirectory(".");
  if (root.kind !== "directory") return "";
  const { entries } = walkEntries(workspace, root.handle, { recursive: true, maxEntries: WALK_LIMIT, signal });
  const wanted = relative.replace(/\/+$/, "");
  const base = wanted.split("/").at(-1) ?? wanted;
  const parts: string[] = [];
  const sameName = entries.filter((entry) => entry.replace(/\/$/, "").split("/").at(-1) === base && entry.replace(/\/$/, "") !== wanted);
  if (sameName.length > 0) parts.push(`Named ${base} in the workspace: ${sameName.slice(0, SAME_NAME_SHOWN).join(", ")}${sameName.length > SAME_NAME_SHOWN ? ", …" : ""}.`);
  // The nearest folder of the path that exists, and its direct entries.
  const folders = new Set(entries.filter((entry) => entry.endsWith("/")).map((entry) => entry.slice(0, -1)));
  const segments = wanted.split("/").slice(0, -1);
  while (segments.length > 0 && !folders.has(segments.join("/"))) segments.pop();
  const folder = segments.join("/");
  const prefix = folder === "" ? "" : `${folder}/`;
  const direct = entries.filter((entry) => entry.startsWith(prefix) && entry !== prefix && !entry.slice(prefix.length).replace(/\/$/, "").includes("/")).map((entry) => entry.slice(prefix.length));
  if (direct.length > 0) {
    const where = folder === "" ? "The workspace root" : `${folder}/`;
    parts.push(`${where} has: ${direct.slice(0, FOLDER_SHOWN).join(", ")}${direct.length > FOLDER_SHOWN ? `, … (${direct.length} entries; list_dir shows them all)` : ""}.`);
  }
  return escapeInvisible(parts.join(" "));
}
