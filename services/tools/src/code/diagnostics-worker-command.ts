import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** How a diagnostics worker for `root` is started. */
export type WorkerCommand = (root: string) => { file: string; args: string[] };

const systemFolders = ["/usr", "/bin", "/lib", "/lib32", "/lib64", "/sbin", "/etc/alternatives"];
/** The install: the worker's own code and the `typescript` package it loads. */
const installRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const defaultWorkerScript = join(dirname(fileURLToPath(import.meta.url)), "diagnostics-worker.js");

/** Node running `script` directly (no bubblewrap on the host). */
export function plainWorker(script = defaultWorkerScript): WorkerCommand {
  return () => ({ file: process.execPath, args: [script] });
}

/**
 * The worker reads the workspace by name (TypeScript's module resolution), so it runs in a mount
 * namespace of its own that holds only the system folders, Node, the install and the script's
 * folder read-only, and the workspace read-only: a link swapped in cannot lead anywhere else.
 */
export function workerInMountJail(script = defaultWorkerScript): WorkerCommand {
  const node = realpathSync(process.execPath);
  return (root) => {
    const args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"];
    for (const folder of [...systemFolders, dirname(node), installRoot, dirname(script)]) args.push("--ro-bind-try", folder, folder);
    args.push("--ro-bind", root, root, "--chdir", root, "--", node, script);
    return { file: "bwrap", args };
  };
}
