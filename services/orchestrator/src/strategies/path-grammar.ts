import type { ModelChatRequest } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";

/** Tools whose `path` names a file that must exist. */
const EXISTING = ["read_file", "replace_in_file"];
/** Tools whose `path` may name a new file. */
const CREATING = ["write_file"];
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
export async function grammarPaths(context: RunContext, offered: readonly string[]): Promise<ModelChatRequest["grammar_paths"]> {
  if (context.session.record.experiment?.path_grammar !== true) return undefined;
  const tools = EXISTING.filter((name) => offered.includes(name));
  const newPathTools = CREATING.filter((name) => offered.includes(name));
  if (tools.length === 0 && newPathTools.length === 0) return undefined;
  if (context.workspaceFiles === undefined) context.workspaceFiles = await listWorkspaceFiles(context);
  const paths = [...new Set([...context.workspaceFiles, ...context.state.files_changed])].slice(0, 1024);
  // Without a file to name, the tools that need one keep their own rule; a new path is still plain.
  if (paths.length === 0) return newPathTools.length > 0 ? { paths: [], tools: [], new_path_tools: newPathTools } : undefined;
  return { paths, tools, new_path_tools: newPathTools };
}

/** The workspace's files (no directories, no links), or none when the listing fails. */
async function listWorkspaceFiles(context: RunContext): Promise<string[]> {
  const record = context.session.record;
  try {
    const result = await context.seams.tools.exec(record.id, record.workspace, { id: context.seams.generateId(), name: "list_dir", arguments: { path: ".", recursive: true, max_entries: MAX_LISTED } }, { network: false });
    if (result.is_error === true) return [];
    const listing = result.output.split("\n\n")[0]?.split("\n") ?? [];
    return listing.filter((entry) => entry !== "" && !entry.endsWith("/") && !entry.endsWith("@"));
  } catch (error) {
    context.logger.warn({ err: error }, "listing the workspace for path_grammar failed; paths keep their own rule");
    return [];
  }
}
