import type { RunContext } from "../run/run-context.js";
import { listWorkspace } from "./list-workspace.js";
import type { Strategy } from "./strategy.js";

/** How many entries of the workspace the first turn shows, and how many characters at most. */
const MAX_ENTRIES = 120;
const MAX_CHARS = 3000;

/** The workspace's files for the first turn's prefix, cut to what fits; empty when it cannot be listed. */
async function listedFiles(context: RunContext, budgetChars: number): Promise<{ text: string; entries: number }> {
  const listing = await listWorkspace(context, MAX_ENTRIES, "the prompt prefix");
  if (listing === undefined) return { text: "", entries: 0 };
  const limit = Math.min(MAX_CHARS, Math.floor(budgetChars / 8));
  const lines: string[] = [];
  let used = 0;
  for (const line of listing.entries) {
    if (used + line.length + 1 > limit) break;
    lines.push(line);
    used += line.length + 1;
  }
  if (lines.length === 0) return { text: "", entries: 0 };
  const more = lines.length < listing.entries.length || listing.capped ? "\n(more entries: list_dir a folder to see them)" : "";
  return { text: lines.join("\n") + more, entries: lines.length };
}

/**
 * The workspace_files strategy: the first turn starts from the real workspace. Its files (bounded)
 * are in the stable prefix, and paths are said to be relative to it, so a model neither guesses a
 * path from convention nor copies one from an example; the absolute path of the workspace is not
 * a path the model needs to write.
 */
export const workspaceFiles: Strategy = {
  setting: "workspace_files",
  async stablePrefix(context, _fit, budgetChars) {
    if (context.depth > 0) return { text: "" };
    const listing = await listedFiles(context, budgetChars);
    if (listing.text === "") return { text: "" };
    return {
      text: `# Workspace files\nEvery path is relative to the workspace root: write it as it appears below, never as an absolute path. Its files and folders (folders end with /):\n${listing.text}`,
      facts: { workspace_entries: listing.entries },
    };
  },
};
