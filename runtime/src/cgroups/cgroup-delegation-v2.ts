/** The supervisor's delegation of the unified (v2) cgroup hierarchy to one service. */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cgroupV2LimitControllers, cgroupV2ServiceLeaf } from "./cgroup-v2.js";
import type { CgroupDelegation } from "./cgroup-delegation-result.js";

/** The leaf the supervisor moves itself into when its own group must hand controllers down. */
export const supervisorLeaf = "aide-supervisor";

function words(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/**
 * Makes `group` hand `controllers` to its children. Its own processes move into a leaf first (no
 * internal processes) — only when every one of them is this supervisor or its child: moving a
 * session's other processes is never ours to do. Returns the reason when it cannot.
 */
export function handDownControllers(group: string, controllers: readonly string[], leaf: string, ownerPid: number): string | undefined {
  const delegated = words(join(group, "cgroup.subtree_control"));
  const wanted = controllers.filter((controller) => !delegated.includes(controller));
  if (wanted.length === 0) return undefined;
  const available = words(join(group, "cgroup.controllers"));
  const absent = wanted.filter((controller) => !available.includes(controller));
  if (absent.length > 0) return `${group} is not given the ${absent.join(", ")} controller(s) (it has: ${available.join(" ") || "none"}; on a hybrid host they are bound to the v1 hierarchy)`;
  const members = words(join(group, "cgroup.procs")).map(Number);
  const foreign = members.filter((pid) => pid !== ownerPid && parentOf(pid) !== ownerPid);
  if (foreign.length > 0) {
    return `${group} holds other processes (${foreign.slice(0, 5).join(", ")}), so it cannot hand down ${wanted.join(", ")}; start aide up in a cgroup of its own with Delegate=yes: systemd-run --user --scope -p Delegate=yes aide up`;
  }
  try {
    if (members.length > 0) {
      mkdirSync(join(group, leaf), { recursive: true });
      for (const pid of members) writeFileSync(join(group, leaf, "cgroup.procs"), String(pid));
    }
    writeFileSync(join(group, "cgroup.subtree_control"), wanted.map((controller) => `+${controller}`).join(" "));
  } catch (error) {
    return `could not hand down ${wanted.join(", ")} in ${group}: ${(error as Error).message}`;
  }
  const now = words(join(group, "cgroup.subtree_control"));
  const missing = controllers.filter((controller) => !now.includes(controller));
  return missing.length === 0 ? undefined : `${group} did not take ${missing.join(", ")} into cgroup.subtree_control`;
}

/**
 * v2: the service gets `<own>/aide-<name>-<pid>/`, a domain that hands `+memory +pids` down, and
 * starts in its leaf `aide-service/`; inside its sandbox it may write that domain only, and makes
 * its per-command groups there, beside its leaf. The supervisor's own group hands the controllers
 * down to it (moving the supervisor into a leaf of its own when it is alone there).
 */
export function delegateCgroupsV2(name: string, ownerPid: number, root: string, controllers: readonly string[] = cgroupV2LimitControllers): CgroupDelegation {
  const none = (reason: string): CgroupDelegation => ({ hierarchy: "none", reason, directories: [], procsFiles: [], release: () => undefined });
  let own: string | undefined;
  try {
    own = /^0::(.*)$/m.exec(readFileSync(`/proc/${ownerPid}/cgroup`, "utf8"))?.[1];
  } catch {
    own = undefined;
  }
  if (own === undefined) return none(`process ${ownerPid} has no cgroup v2 path`);
  // Already moved into our own leaf by an earlier delegation: the group above is ours.
  const base = join(root, own.endsWith(`/${supervisorLeaf}`) ? own.slice(0, -supervisorLeaf.length - 1) : own);
  const problem = handDownControllers(base, controllers, supervisorLeaf, ownerPid);
  if (problem) return none(problem);
  const domain = join(base, `aide-${name}-${ownerPid}`);
  try {
    mkdirSync(domain, { recursive: true });
  } catch (error) {
    return none(`could not create ${domain}: ${(error as Error).message}`);
  }
  const inner = handDownControllers(domain, controllers, cgroupV2ServiceLeaf, ownerPid);
  const leaf = join(domain, cgroupV2ServiceLeaf);
  try {
    if (!inner) mkdirSync(leaf, { recursive: true });
  } catch (error) {
    rmdirSync(domain);
    return none(`could not create ${leaf}: ${(error as Error).message}`);
  }
  if (inner) {
    rmdirSync(domain);
    return none(inner);
  }
  return {
    hierarchy: "v2",
    directories: [domain],
    procsFiles: [join(leaf, "cgroup.procs")],
    release() {
      for (const directory of [leaf, domain]) {
        try {
          rmdirSync(directory);
        } catch {
          // still has members or children (a command being reaped); the kernel keeps it until empty
        }
      }
    },
  };
}
