import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, rmdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../service/logger.js";
import { createCgroupLimits } from "./command-cgroup-limits.js";

const own =
  readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .map((l) => l.split(":"))
    .find((p) => p[1]?.split(",").includes("pids"))?.[2] ?? "/";
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

  it("sweeps old empty groups an earlier instance left behind, not a fresh one or a foreign one", async () => {
    const stale = join(parent, "aide-tools-deadbeef-run-7");
    const foreign = join(parent, "aide-tools-4242");
    const fresh = join(parent, "aide-tools-cafe0001-run-1");
    mkdirSync(stale);
    mkdirSync(foreign);
    mkdirSync(fresh);
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(stale, old, old);
    try {
      await createCgroupLimits({ maxProcesses: 64, maxMemoryBytes: 256 * 1024 ** 2, logger });
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(foreign)).toBe(true);
      expect(existsSync(fresh)).toBe(true);
    } finally {
      rmdirSync(foreign);
      rmdirSync(fresh);
      if (existsSync(stale)) rmdirSync(stale);
    }
  });
});
