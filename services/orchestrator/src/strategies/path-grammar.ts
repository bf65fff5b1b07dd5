import type { ModelChatRequest } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import type { Strategy } from "./strategy.js";
import { strategyState } from "./strategy-state.js";
import { listWorkspace } from "./list-workspace.js";

/** Tools whose `path` names a file that must exist. */
const EXISTING = ["read_file", "replace_in_file"];
/** Tools whose `path` may name a new file. */
const CREATING = ["write_file"];
/** Tools whose `path` names a folder. */
const FOLDERS = ["list_dir", "search_files"];
/** The most files the workspace listing contributes (the grammar holds one literal per file). */
const MAX_LISTED = 400;

/**
 * The path_grammar strategy (issue 28; off unless the start sets it): the local model's grammar
 * spells a read or an edit's path as one of the workspace's files, and a new file's path as one of
 * them or a plain relative one. Measured before it: Gemma 3 270M's calls named the files `- `,
 * `# ` and `(`, and each was refused or created junk, so a run never reached the file the task
 * was about. The tools service still resolves and jails every path; this only leaves out spellings
 * that cannot name a file of the workspace. The workspace is listed once, before the first turn
 * (list_dir, recursive, no event: like the code map, it is the request's own input); files this
 * run created join the list.
 */
export async function grammarPaths(context: RunContext, offered: readonly string[], only?: readonly string[]): Promise<ModelChatRequest["grammar_paths"]> {
  const tools = EXISTING.filter((name) => offered.includes(name));
  const newPathTools = CREATING.filter((name) => offered.includes(name));
  const folderTools = FOLDERS.filter((name) => offered.includes(name));
  if (tools.length === 0 && newPathTools.length === 0 && folderTools.length === 0) return undefined;
  const { files, folders } = await workspaceListing(context);
  // follow_imports: while its reads are open, the file to read is one of those it names.
  const paths = only !== undefined && only.length > 0 ? [...only] : [...new Set([...files, ...context.state.files_changed])].slice(0, 1024);
  // The root is always a folder to name; folders the run created are not added (a listing would show them).
  const directories = [".", ...folders].slice(0, 1024);
  // Without a file to name, the tools that need one keep their own rule; a new path is still plain.
  return { paths, tools: paths.length > 0 ? tools : [], new_path_tools: newPathTools, directories, directory_tools: folderTools };
}

export const pathGrammar: Strategy = {
  setting: "path_grammar",
  async grammar(context, shaping) {
    shaping.paths = await grammarPaths(context, shaping.offered, shaping.importsToRead);
  },
};

/** The workspace's files and folders, listed once a run (the listing path_grammar and follow_imports share). */
export async function workspaceListing(context: RunContext): Promise<{ files: string[]; folders: string[] }> {
  const slot = strategyState<{ listing?: { files: string[]; folders: string[] } }>(context, "workspace-listing", () => ({}));
  return (slot.listing ??= await listFilesAndFolders(context));
}

/** The workspace's files and folders (no links), or none when the listing fails. */
async function listFilesAndFolders(context: RunContext): Promise<{ files: string[]; folders: string[] }> {
  const listing = (await listWorkspace(context, MAX_LISTED, "path_grammar (paths keep their own rule)"))?.entries.filter((entry) => !entry.endsWith("@")) ?? [];
  return { files: listing.filter((entry) => !entry.endsWith("/")), folders: listing.filter((entry) => entry.endsWith("/")).map((entry) => entry.slice(0, -1)) };
}
