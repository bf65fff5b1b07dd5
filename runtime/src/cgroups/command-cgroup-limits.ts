import { mkdir, readdir, rmdir, stat, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "pino";
import { aideError } from "@aide/contracts";
import { cgroupV2CommandDomain, cgroupV2Root } from "./cgroup-v2.js";
import { ownCgroupPaths } from "./own-cgroup-paths.js";
import { killCgroupMembers } from "./kill-cgroup-members.js";
import { cgroupV2Limits } from "./command-cgroup-limits-v2.js";
import type { CgroupLimits } from "./command-cgroups.js";

interface Controller {
  kind: "pids" | "memory";
  directory: string;
  limitFile: string;
  limit: string;
}

/**
 * Per-command cgroups so a fork bomb or a memory bomb hits its own limit and not the service: root
 * ignores RLIMIT_NPROC, so the process count has to be capped here. From the unified (v2)
 * hierarchy when the supervisor delegated a domain there (command-cgroup-limits-v2.ts), else from the v1
 * `pids` and `memory` controllers.
 */
export async function createCgroupLimits(options: { maxProcesses: number; maxMemoryBytes: number; logger: Logger; cgroupRoot?: string; cgroupV2Root?: string }): Promise<CgroupLimits> {
  const v2Root = options.cgroupV2Root ?? (options.cgroupRoot === undefined ? cgroupV2Root() : undefined);
  let v2Problem: string | undefined;
  if (v2Root !== undefined) {
    const { domain, reason } = await cgroupV2CommandDomain(v2Root);
    if (domain !== undefined) {
      await sweepStale(domain);
      return cgroupV2Limits({ domain, maxProcesses: options.maxProcesses, maxMemoryBytes: options.maxMemoryBytes, logger: options.logger, removeWhenEmpty });
    }
    v2Problem = reason;
  }
  const own = await ownCgroupPaths();
  const root = options.cgroupRoot ?? "/sys/fs/cgroup";
  const candidates: Controller[] = [
    { kind: "pids", directory: join(root, "pids", own.get("pids") ?? "/"), limitFile: "pids.max", limit: String(options.maxProcesses) },
    { kind: "memory", directory: join(root, "memory", own.get("memory") ?? "/"), limitFile: "memory.limit_in_bytes", limit: String(options.maxMemoryBytes) },
  ];
  const usable: Controller[] = [];
  for (const controller of candidates) {
    const probe = join(controller.directory, `aide-tools-probe-${randomBytes(4).toString("hex")}`);
    try {
      await mkdir(probe);
      await writeFile(join(probe, controller.limitFile), controller.limit);
      await rmdir(probe);
      usable.push(controller);
    } catch (error) {
      await rmdir(probe).catch(() => undefined);
      options.logger.warn({ controller: controller.kind, err: (error as Error).message }, "cgroup controller not usable; that limit is not enforced");
    }
  }
  const instance = randomBytes(4).toString("hex");
  const pending = new Set<Promise<void>>();
  await Promise.all(usable.map((controller) => sweepStale(controller.directory)));
  let counter = 0;
  return {
    ...(v2Problem !== undefined ? { v2Problem } : {}),
    available: usable.length === candidates.length,
    describe: usable.length > 0 ? usable.map((c) => `${c.kind}=${c.limit}`).join(",") : "none",
    async create(name) {
      if (usable.length === 0) return null;
      // Taken before the first await: concurrent creates each keep their own number for every controller.
      counter += 1;
      const serial = counter;
      const created: string[] = [];
      try {
        for (const controller of usable) {
          const directory = join(controller.directory, `aide-tools-${instance}-${name}-${serial}`);
          await mkdir(directory);
          created.push(directory);
          await writeFile(join(directory, controller.limitFile), controller.limit);
          if (controller.kind === "memory") await writeFile(join(directory, "memory.memsw.limit_in_bytes"), controller.limit).catch(() => undefined);
        }
      } catch (error) {
        options.logger.warn({ err: (error as Error).message }, "could not create a command cgroup; the command is not run");
        await Promise.all(created.map((d) => rmdir(d).catch(() => undefined)));
        throw aideError("SANDBOX_LIMITS_UNAVAILABLE", { detail: `its cgroup could not be created: ${(error as Error).message}` });
      }
      return {
        procsFiles: created.map((d) => join(d, "cgroup.procs")),
        async release() {
          // Kill now; removing the (then empty) group waits for the kernel to reap, off the caller's path.
          await Promise.all(created.map(killCgroupMembers));
          const removal = Promise.all(created.map((d) => removeWhenEmpty(d, options.logger))).then(() => undefined);
          pending.add(removal);
          void removal.finally(() => pending.delete(removal));
        },
      };
    },
    async drain() {
      await Promise.all([...pending]);
    },
  };
}

async function removeWhenEmpty(directory: string, logger: Logger): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    if (
      await rmdir(directory).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code === "ENOENT",
      )
    )
      return;
    await killCgroupMembers(directory);
    await new Promise((resolve) => setTimeout(resolve, 25 * (attempt + 1)));
  }
  logger.warn({ directory }, "could not remove a command cgroup");
}

/**
 * Command cgroups an earlier instance left behind (it was killed before removing them). Only empty
 * ones older than a minute go: another running instance's group is empty for a moment between its
 * creation and the command joining it, and must not be swept away in that moment.
 */
async function sweepStale(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const cutoff = Date.now() - 60_000;
  await Promise.all(
    names
      .filter((name) => /^aide-tools-[0-9a-f]+-[a-z0-9]+-\d+$/.test(name))
      .map(async (name) => {
        const directory = join(parent, name);
        const stats = await stat(directory).catch(() => null);
        if (stats !== null && stats.mtimeMs < cutoff) await rmdir(directory).catch(() => undefined);
      }),
  );
}
