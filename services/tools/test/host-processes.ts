import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";

/** The cgroup v1 path of `pid` for `controller`, from /proc (undefined when not mounted). */
export function cgroupOf(controller: string, pid: number | "self" = "self"): string | undefined {
  const text = readFileSync(`/proc/${pid}/cgroup`, "utf8");
  return text
    .split("\n")
    .map((line) => line.split(":"))
    .find((parts) => parts[1]?.split(",").includes(controller))?.[2];
}

/** The same probe the service makes: can a child cgroup be created for this controller? */
export function cgroupUsable(controller: string): boolean {
  const probe = join("/sys/fs/cgroup", controller, cgroupOf(controller) ?? "/", `aide-test-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** Host `ps` lines (`pid args`) whose command line contains `needle`; the sandbox's pid namespace is visible from here. */
export function hostProcessesWith(needle: string): string[] {
  return execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(needle) && !line.includes("ps -eo"));
}

/** The pids of `pid`'s descendants (children, their children, …) with their command lines, from /proc. */
export function descendantsOf(pid: number): Array<{ pid: number; args: string[] }> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces or parentheses: the parent pid is the second field after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: Array<{ pid: number; args: string[] }> = [];
  const wanted = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parentOf) {
      if (wanted.has(parent) && !wanted.has(child)) {
        wanted.add(child);
        grew = true;
        try {
          found.push({ pid: child, args: readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").filter(Boolean) });
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  return found;
}
