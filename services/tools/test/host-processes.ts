import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";

/** The cgroup v1 path of `pid` for `controller`, from /proc (undefined when not mounted). */
export function cgroupOf(controller: string, pid: number | "self" = "self"): string | undefined {
  const text = readFileSync(`/proc/${pid}/cgroup`, "utf8");
  return text.split("\n").map((line) => line.split(":")).find((parts) => parts[1]?.split(",").includes(controller))?.[2];
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
