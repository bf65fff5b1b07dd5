/** Per-command limits from the unified (v2) hierarchy, in the domain the supervisor delegated. */
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { aideError } from "@aide/contracts";
import { createCgroupV2Group, killCgroupV2Group } from "./cgroup-v2.js";
import type { CgroupLimits } from "./command-cgroups.js";

/**
 * One group per command beside the service's own leaf: `memory.max`, `memory.swap.max` (0),
 * `pids.max` and `memory.oom.group` (an out-of-memory kill takes the whole command). `sweep` and
 * `removeWhenEmpty` are the v1 code's own (stale groups and reaping work the same on both).
 */
export function cgroupV2Limits(options: {
  domain: string;
  maxProcesses: number;
  maxMemoryBytes: number;
  logger: Logger;
  removeWhenEmpty: (directory: string, logger: Logger) => Promise<void>;
}): CgroupLimits {
  const instance = randomBytes(4).toString("hex");
  const pending = new Set<Promise<void>>();
  let counter = 0;
  return {
    available: true,
    describe: `v2 memory=${options.maxMemoryBytes},pids=${options.maxProcesses}`,
    async create(name) {
      counter += 1;
      let group: string;
      try {
        group = await createCgroupV2Group(options.domain, `aide-tools-${instance}-${name}-${counter}`, { maxProcesses: options.maxProcesses, maxMemoryBytes: options.maxMemoryBytes });
      } catch (error) {
        options.logger.warn({ err: (error as Error).message }, "could not create a command cgroup; the command is not run");
        throw aideError("SANDBOX_LIMITS_UNAVAILABLE", { detail: `its cgroup could not be created: ${(error as Error).message}` });
      }
      return {
        procsFiles: [`${group}/cgroup.procs`],
        async release() {
          await killCgroupV2Group(group);
          const removal = options.removeWhenEmpty(group, options.logger);
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
