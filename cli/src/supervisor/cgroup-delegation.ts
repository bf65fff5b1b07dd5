import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";

/** The cgroup v1 controllers the tools service limits its commands with. */
const controllers = ["pids", "memory"] as const;

export interface CgroupDelegation {
  /** Folders the service may write (bound read-write into its sandbox). */
  directories: string[];
  /** `cgroup.procs` files the launcher joins before it execs bubblewrap. */
  procsFiles: string[];
  release(): void;
}

/**
 * Gives one service a cgroup of its own per controller, under the supervisor's own, so that inside
 * its read-only sandbox it can still create a child cgroup per command (process and memory limits)
 * without being able to touch any other cgroup. Cgroup v2-only or read-only hosts get none; the
 * tools service then says which limits are not enforced.
 */
export function delegateCgroups(name: string, ownerPid = process.pid): CgroupDelegation {
  const none: CgroupDelegation = { directories: [], procsFiles: [], release: () => undefined };
  if (existsSync("/sys/fs/cgroup/cgroup.controllers")) return none;
  let own: Map<string, string>;
  try {
    own = new Map(
      readFileSync("/proc/self/cgroup", "utf8")
        .split("\n")
        .map((line) => line.split(":"))
        .filter((parts) => parts.length >= 3)
        .flatMap((parts) => parts[1].split(",").map((controller): [string, string] => [controller, parts.slice(2).join(":")])),
    );
  } catch {
    return none;
  }
  const directories: string[] = [];
  for (const controller of controllers) {
    const base = join("/sys/fs/cgroup", controller, own.get(controller) ?? "/");
    const directory = join(base, `aide-${name}-${ownerPid}`);
    try {
      mkdirSync(directory, { recursive: false });
      directories.push(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") directories.push(directory);
    }
  }
  return {
    directories,
    procsFiles: directories.map((directory) => join(directory, "cgroup.procs")),
    release() {
      for (const directory of directories) {
        try {
          rmdirSync(directory);
        } catch {
          // still has members or children (a command being reaped); the kernel keeps it until empty
        }
      }
    },
  };
}
