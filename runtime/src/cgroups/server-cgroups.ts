import { mkdir, rmdir, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "pino";
import { cgroupV2CommandDomain, cgroupV2Root, createCgroupV2Group, killCgroupV2Group } from "./cgroup-v2.js";
import { ownCgroupPaths } from "./own-cgroup-paths.js";
import { killCgroupMembers } from "./kill-cgroup-members.js";

export interface ServerCgroup {
  /** cgroup.procs files the server's first process joins before it execs bubblewrap. */
  procsFiles: string[];
  /** Kills whatever is left in the groups and removes them. Must not throw. */
  release(): Promise<void>;
}

export interface ServerCgroups {
  /** e.g. "pids=256,memory=1073741824", or "none" when the host gives no usable controller. */
  describe(limits: { maxProcesses: number; maxMemoryBytes: number }): string;
  create(name: string, limits: { maxProcesses: number; maxMemoryBytes: number }): Promise<ServerCgroup | null>;
}

/**
 * A cgroup (v1 `pids` and `memory`, as the supervisor delegates them) per server process, so a
 * server that forks or allocates without bound hits its own limit and not the service's.
 */
export async function createServerCgroups(logger: Logger, cgroupRoot = "/sys/fs/cgroup", v2Root = cgroupV2Root()): Promise<ServerCgroups> {
  if (v2Root !== undefined) {
    const { domain, reason } = await cgroupV2CommandDomain(v2Root);
    if (domain !== undefined) return serverCgroupsV2(domain, logger);
    logger.debug({ reason }, "no delegated cgroup v2 domain; trying v1");
  }
  const own = await ownCgroupPaths();
  const usable: Array<{ kind: "pids" | "memory"; directory: string }> = [];
  for (const kind of ["pids", "memory"] as const) {
    const directory = join(cgroupRoot, kind, own.get(kind) ?? "/");
    const probe = join(directory, `aide-mcp-probe-${randomBytes(4).toString("hex")}`);
    try {
      await mkdir(probe);
      await rmdir(probe);
      usable.push({ kind, directory });
    } catch (error) {
      logger.warn({ controller: kind, err: (error as Error).message }, "cgroup controller not usable for MCP servers; that limit is not enforced");
    }
  }
  if (usable.length === 0) logger.warn({ code: "SANDBOX_LIMITS_UNAVAILABLE" }, "MCP servers run without memory and process limits: no cgroup v1 controller and no delegated cgroup v2 domain");
  const instance = randomBytes(4).toString("hex");
  let counter = 0;
  return {
    describe: (limits) => usable.map((c) => (c.kind === "pids" ? `pids=${limits.maxProcesses}` : `memory=${limits.maxMemoryBytes}`)).join(",") || "none",
    async create(name, limits) {
      if (usable.length === 0) return null;
      counter += 1;
      const created: string[] = [];
      try {
        for (const controller of usable) {
          const directory = join(controller.directory, `aide-mcp-${instance}-${name}-${counter}`);
          await mkdir(directory);
          created.push(directory);
          if (controller.kind === "pids") await writeFile(join(directory, "pids.max"), String(limits.maxProcesses));
          else await writeFile(join(directory, "memory.limit_in_bytes"), String(limits.maxMemoryBytes));
        }
      } catch (error) {
        logger.warn({ server: name, err: (error as Error).message }, "could not create the server's cgroup; it starts without those limits");
        await Promise.all(created.map((d) => rmdir(d).catch(() => undefined)));
        return null;
      }
      return {
        procsFiles: created.map((d) => join(d, "cgroup.procs")),
        async release() {
          for (const directory of created) {
            for (let attempt = 0; attempt < 20; attempt += 1) {
              await killCgroupMembers(directory);
              if (
                await rmdir(directory).then(
                  () => true,
                  (e: NodeJS.ErrnoException) => e.code === "ENOENT",
                )
              )
                break;
              await new Promise((resolve) => setTimeout(resolve, 25 * (attempt + 1)));
            }
          }
        },
      };
    },
  };
}

/** v2: one group per server beside the service's leaf, with memory.max, memory.swap.max, pids.max and memory.oom.group. */
function serverCgroupsV2(domain: string, logger: Logger): ServerCgroups {
  const instance = randomBytes(4).toString("hex");
  let counter = 0;
  return {
    describe: (limits) => `v2 pids=${limits.maxProcesses},memory=${limits.maxMemoryBytes}`,
    async create(name, limits) {
      counter += 1;
      let group: string;
      try {
        group = await createCgroupV2Group(domain, `aide-mcp-${instance}-${name}-${counter}`, limits);
      } catch (error) {
        logger.warn({ code: "SANDBOX_LIMITS_UNAVAILABLE", server: name, err: (error as Error).message }, "could not create the server's cgroup; it starts without those limits");
        return null;
      }
      return {
        procsFiles: [join(group, "cgroup.procs")],
        async release() {
          for (let attempt = 0; attempt < 20; attempt += 1) {
            await killCgroupV2Group(group);
            if (
              await rmdir(group).then(
                () => true,
                (e: NodeJS.ErrnoException) => e.code === "ENOENT",
              )
            )
              break;
            await new Promise((resolve) => setTimeout(resolve, 25 * (attempt + 1)));
          }
        },
      };
    },
  };
}
