/** This process's cgroup v1 paths by controller (`/proc/self/cgroup`); empty when unreadable. */
import { readFile } from "node:fs/promises";

export async function ownCgroupPaths(): Promise<Map<string, string>> {
  const text = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  const paths = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers === undefined || path === undefined) continue;
    for (const controller of controllers.split(",")) paths.set(controller, path);
  }
  return paths;
}
