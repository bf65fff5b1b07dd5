/**
 * The unified (v2) cgroup hierarchy, as the supervisor delegates it and the tools and MCP services
 * use it: one folder per group, limits as files in it (`memory.max`, `memory.swap.max`,
 * `pids.max`, `memory.oom.group`), controllers handed down through `cgroup.subtree_control`, and
 * the "no internal processes" rule (a group whose children get controllers holds no process
 * itself, so processes live in leaves).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { killCgroupMembers } from "./kill-cgroup-members.js";

/** The controllers a command's limits need. */
export const cgroupV2LimitControllers = ["memory", "pids"] as const;

/** The leaf a delegated service runs in; its parent is the domain its command groups go in. */
export const cgroupV2ServiceLeaf = "aide-service";

/**
 * Where the unified hierarchy is mounted: AIDE_CGROUP_V2_ROOT, else /sys/fs/cgroup on a v2-only
 * host, else /sys/fs/cgroup/unified on a hybrid one; undefined without one.
 */
export function cgroupV2Root(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AIDE_CGROUP_V2_ROOT) return env.AIDE_CGROUP_V2_ROOT;
  if (existsSync("/sys/fs/cgroup/cgroup.controllers")) return "/sys/fs/cgroup";
  if (existsSync("/sys/fs/cgroup/unified/cgroup.controllers")) return "/sys/fs/cgroup/unified";
  return undefined;
}

/** A process's v2 path (`0::/path` in /proc/<pid>/cgroup); undefined when it has none. */
export async function cgroupV2PathOf(pid: number | "self" = "self"): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "");
  return /^0::(.*)$/m.exec(text)?.[1];
}

async function words(file: string): Promise<string[]> {
  return (await readFile(file, "utf8").catch(() => "")).split(/\s+/).filter(Boolean);
}

/** The controllers `group` can hand its children (`cgroup.controllers`) and does (`cgroup.subtree_control`). */
export async function cgroupV2Controllers(group: string): Promise<{ available: string[]; delegated: string[] }> {
  return { available: await words(join(group, "cgroup.controllers")), delegated: await words(join(group, "cgroup.subtree_control")) };
}

/**
 * The domain a service's command groups go in: the parent of the `aide-service` leaf the
 * supervisor started it in, when that parent hands down the limit controllers. A service never
 * moves processes itself (that would be the whole session's, run by hand). Undefined with the
 * reason otherwise.
 */
export async function cgroupV2CommandDomain(root: string, controllers: readonly string[] = cgroupV2LimitControllers): Promise<{ domain?: string; reason?: string }> {
  const own = await cgroupV2PathOf();
  if (own === undefined) return { reason: "this process has no cgroup v2 path" };
  const group = join(root, own);
  if (basename(group) !== cgroupV2ServiceLeaf) return { reason: `${group} is not a cgroup aide up delegated (no ${cgroupV2ServiceLeaf} leaf)` };
  const domain = dirname(group);
  const { available, delegated } = await cgroupV2Controllers(domain);
  const missing = controllers.filter((controller) => !delegated.includes(controller));
  if (missing.length > 0) return { reason: `${domain} does not hand down ${missing.join(", ")} (available: ${available.join(" ") || "none"}; delegated: ${delegated.join(" ") || "none"})` };
  return { domain };
}

export interface CgroupV2Limits {
  maxProcesses: number;
  maxMemoryBytes: number;
}

/** The files a command group's limits are written to, with their values (no swap beyond the memory limit). */
export function cgroupV2LimitFiles(limits: CgroupV2Limits): Array<[file: string, value: string]> {
  return [
    ["memory.max", String(limits.maxMemoryBytes)],
    ["memory.swap.max", "0"],
    ["pids.max", String(limits.maxProcesses)],
    // An out-of-memory kill takes the whole command, not one process of it.
    ["memory.oom.group", "1"],
  ];
}

/** Creates `domain/name` with the limits written; throws (and removes it) when a limit cannot be. */
export async function createCgroupV2Group(domain: string, name: string, limits: CgroupV2Limits): Promise<string> {
  const group = join(domain, name);
  await mkdir(group);
  try {
    for (const [file, value] of cgroupV2LimitFiles(limits)) {
      // memory.swap.max is absent when the kernel has no swap accounting: nothing to cap then.
      if (file === "memory.swap.max" && !existsSync(join(group, file))) continue;
      await writeFile(join(group, file), value);
    }
  } catch (error) {
    await rmdir(group).catch(() => undefined);
    throw error;
  }
  return group;
}

/** Kills every process in `group` (cgroup.kill, else one by one); must not throw. */
export async function killCgroupV2Group(group: string): Promise<void> {
  if (
    await writeFile(join(group, "cgroup.kill"), "1").then(
      () => true,
      () => false,
    )
  )
    return;
  await killCgroupMembers(group);
}
