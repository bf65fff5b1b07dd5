import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@aide/runtime";
import { createCgroupLimits } from "./cgroup-limits.js";

const own = readFileSync("/proc/self/cgroup", "utf8").split("\n").map((l) => l.split(":")).find((p) => p[1]?.split(",").includes("pids"))?.[2] ?? "/";
const parent = join("/sys/fs/cgroup/pids", own);
const writable = (() => {
  try {
    const probe = join(parent, `aide-unit-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!writable)("command cgroups (needs a writable v1 pids cgroup)", () => {
  const logger = createLogger("test", { level: "silent" });

  it("creates a limited group per command, removes it after release, and drains", async () => {
    const limits = await createCgroupLimits({ maxProcesses: 64, maxMemoryBytes: 256 * 1024 ** 2, logger });
    const group = await limits.create("unit");
    expect(group).not.toBeNull();
    const directory = group!.procsFiles[0].replace(/\/cgroup\.procs$/, "");
    expect(readFileSync(join(directory, "pids.max"), "utf8").trim()).toBe("64");
    await group!.release();
    await limits.drain();
    expect(existsSync(directory)).toBe(false);
  });

  it("sweeps empty groups an earlier instance left behind, and nothing else", async () => {
    const stale = join(parent, "aide-tools-deadbeef-run-7");
    const foreign = join(parent, "aide-tools-4242");
    mkdirSync(stale);
    mkdirSync(foreign);
    try {
      await createCgroupLimits({ maxProcesses: 64, maxMemoryBytes: 256 * 1024 ** 2, logger });
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(foreign)).toBe(true);
    } finally {
      rmdirSync(foreign);
      if (existsSync(stale)) rmdirSync(stale);
    }
  });
});
