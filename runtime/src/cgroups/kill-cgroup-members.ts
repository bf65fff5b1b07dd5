import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** SIGKILLs every process listed in the group's `cgroup.procs` (v1 or v2); must not throw. */
export async function killCgroupMembers(group: string): Promise<void> {
  const pids = (await readFile(join(group, "cgroup.procs"), "utf8").catch(() => "")).split(/\s+/).filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // already gone
    }
  }
}
