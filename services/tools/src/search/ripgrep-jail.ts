import { dirname } from "node:path";

/** How ripgrep is started: the program and its arguments for a search rooted at `root`. */
export type RipgrepCommand = (ripgrepArguments: string[], root: string) => { file: string; args: string[] };

/** System folders rg may need to run (its libraries); public, read-only. */
const systemFolders = ["/usr", "/bin", "/lib", "/lib32", "/lib64", "/sbin"];

/**
 * ripgrep walks the tree itself, by name, so a folder swapped for a symlink during its walk would
 * take it outside the workspace. It therefore runs in a mount namespace of its own that holds only
 * the system folders, its own binary and the workspace (read-only): there is no outside to reach.
 */
export function ripgrepInMountJail(ripgrepPath: string): RipgrepCommand {
  return (ripgrepArguments, root) => {
    const args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--cap-drop", "ALL"];
    for (const folder of [...systemFolders, dirname(ripgrepPath)]) args.push("--ro-bind-try", folder, folder);
    args.push("--ro-bind", root, root, "--chdir", root, "--", ripgrepPath, ...ripgrepArguments);
    return { file: "bwrap", args };
  };
}
