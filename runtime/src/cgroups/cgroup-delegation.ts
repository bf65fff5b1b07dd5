import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { cgroupV2Root } from "./cgroup-v2.js";
import type { CgroupDelegation } from "./cgroup-delegation-result.js";
import { delegateCgroupsV2 } from "./cgroup-delegation-v2.js";

/** The cgroup v1 controllers the tools service limits its commands with. */
const controllers = ["pids", "memory"] as const;

/**
 * Delegates from the hierarchy the host runs: the unified (v2) one on a v2-only host (or when
 * `hierarchy` or AIDE_CGROUP_HIERARCHY says so), else v1 (a hybrid host's limit controllers are
 * bound to v1).
 */
export function delegateCgroups(name: string, ownerPid = process.pid, options: { hierarchy?: "v1" | "v2"; v2Root?: string; controllers?: readonly string[] } = {}): CgroupDelegation {
  // AIDE_CGROUP_HIERARCHY picks one on a hybrid host (docs/security.md, "Per-command limits").
  const chosen = options.hierarchy ?? (process.env.AIDE_CGROUP_HIERARCHY === "v1" || process.env.AIDE_CGROUP_HIERARCHY === "v2" ? process.env.AIDE_CGROUP_HIERARCHY : undefined);
  const hierarchy = chosen ?? (existsSync("/sys/fs/cgroup/cgroup.controllers") ? "v2" : "v1");
  if (hierarchy === "v1") return delegateCgroupsV1(name, ownerPid);
  const root = options.v2Root ?? cgroupV2Root();
  if (root === undefined) return { hierarchy: "none", reason: "no cgroup v2 hierarchy is mounted", directories: [], procsFiles: [], release: () => undefined };
  return delegateCgroupsV2(name, ownerPid, root, options.controllers);
}

/**
 * Gives one service a cgroup of its own per controller, under the supervisor's own, so that inside
 * its read-only sandbox it can still create a child cgroup per command (process and memory limits)
 * without being able to touch any other cgroup. A read-only host gets none, with the reason; the
 * tools service then says which limits are not enforced.
 */
function delegateCgroupsV1(name: string, ownerPid: number): CgroupDelegation {
  const none = (reason: string): CgroupDelegation => ({ hierarchy: "none", reason, directories: [], procsFiles: [], release: () => undefined });
  let own: Map<string, string>;
  try {
    own = new Map(
      readFileSync("/proc/self/cgroup", "utf8")
        .split("\n")
        .map((line) => line.split(":"))
        .filter((parts) => parts.length >= 3)
        .flatMap((parts) => parts[1].split(",").map((controller): [string, string] => [controller, parts.slice(2).join(":")])),
    );
  } catch (error) {
    return none(`/proc/self/cgroup is unreadable: ${(error as Error).message}`);
  }
  const directories: string[] = [];
  const failures: string[] = [];
  for (const controller of controllers) {
    const base = join("/sys/fs/cgroup", controller, own.get(controller) ?? "/");
    const directory = join(base, `aide-${name}-${ownerPid}`);
    try {
      mkdirSync(directory, { recursive: false });
      directories.push(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") directories.push(directory);
      else failures.push(`${directory}: ${(error as Error).message}`);
    }
  }
  if (directories.length === 0) return none(`cgroup v1 ${controllers.join(" and ")} could not be delegated (${failures.join("; ")})`);
  return {
    hierarchy: "v1",
    ...(failures.length > 0 ? { reason: `only partly delegated: ${failures.join("; ")}` } : {}),
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
