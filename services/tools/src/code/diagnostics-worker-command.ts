import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** How a diagnostics worker (or language server) for `root` is started. */
export type WorkerCommand = (root: string) => { file: string; args: string[] };

const systemFolders = ["/usr", "/bin", "/lib", "/lib32", "/lib64", "/sbin", "/etc/alternatives"];
/** The install: the worker's own code and the `typescript` package it loads. */
const installRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const defaultWorkerScript = join(dirname(fileURLToPath(import.meta.url)), "diagnostics-worker.js");
/** pyright's language server (the package's `pyright-langserver` bin), installed with the tools service. */
export const pyrightLanguageServer = join(dirname(createRequire(import.meta.url).resolve("pyright/package.json")), "langserver.index.js");

/** Node running `script` directly (no bubblewrap on the host). */
export function plainWorker(script = defaultWorkerScript): WorkerCommand {
  return () => ({ file: process.execPath, args: [script] });
}

/** `argv` as it is (no bubblewrap on the host). */
export function plainCommand(argv: readonly string[]): WorkerCommand {
  return () => ({ file: argv[0], args: argv.slice(1) });
}

/**
 * `argv` in a mount namespace of its own that holds only the system folders, Node, the install and
 * the program's folder read-only, and the workspace read-only: a checker reads the workspace by
 * name (module resolution, imports), and a link swapped in cannot lead anywhere else. `writable`:
 * folders of the service's own it may write (go vet's build cache), never in the workspace.
 */
export function commandInMountJail(argv: readonly string[], extraFolders: readonly string[] = [], options: { chdir?: string; writable?: readonly string[] } = {}): WorkerCommand {
  const node = realpathSync(process.execPath);
  const program = (() => {
    try {
      return realpathSync(argv[0]);
    } catch {
      return argv[0];
    }
  })();
  const folders = [...new Set([...systemFolders, dirname(node), installRoot, dirname(program), ...extraFolders])];
  return (root) => {
    const args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"];
    for (const folder of folders) args.push("--ro-bind-try", folder, folder);
    for (const folder of options.writable ?? []) args.push("--bind", folder, folder);
    args.push("--ro-bind", root, root, "--chdir", options.chdir ?? root, "--", ...argv);
    return { file: "bwrap", args };
  };
}

/** The TypeScript worker script under Node, in its mount jail. */
export function workerInMountJail(script = defaultWorkerScript): WorkerCommand {
  return commandInMountJail([realpathSync(process.execPath), script], [dirname(script)]);
}
