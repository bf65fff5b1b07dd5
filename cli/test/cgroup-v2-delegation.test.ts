import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cgroupV2CommandDomain, cgroupV2LimitFiles, delegateCgroupsV2, killCgroupV2Group, supervisorLeaf } from "@aide/runtime";
import { repoRoot } from "../../tests/helpers/service-process.js";

/**
 * Issue 26: cgroup v2. This machine is hybrid: its unified hierarchy (/sys/fs/cgroup/unified) is
 * real and writable, but its memory and pids controllers are bound to v1, so v2 offers only
 * hugetlb (a cgroup2 mount of our own in a private mount namespace offers the same). The hierarchy
 * logic — the supervisor moved into a leaf, controllers handed down through subtree_control, the
 * service's domain and leaf, the service finding its domain, cgroup.kill — is tried here for real
 * on the unified mount with the controller it has; limits enforcement on v2 is tried only where
 * the host's v2 hierarchy has memory and pids (skipped visibly otherwise).
 */
const unified = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"].find((root) => existsSync(join(root, "cgroup.controllers")));
const writable = (() => {
  if (!unified) return false;
  try {
    accessSync(unified, constants.W_OK);
    return true;
  } catch {
    return false;
  }
})();
const v2Controllers = unified ? readFileSync(join(unified, "cgroup.controllers"), "utf8").split(/\s+/).filter(Boolean) : [];
const hierarchyController = v2Controllers[0];
const hasLimitControllers = v2Controllers.includes("memory") && v2Controllers.includes("pids");
const runtimeEntry = join(repoRoot, "runtime", "dist", "index.js");

const words = (file: string) => readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
const v2PathOf = (pid: number) => /^0::(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, "utf8"))?.[1];

/** Removes a cgroup tree, leaves first (each must be empty of processes). */
function removeTree(group: string): void {
  if (!existsSync(group)) return;
  for (const entry of readdirSync(group)) {
    const path = join(group, entry);
    if (statSync(path).isDirectory()) removeTree(path);
  }
  rmdirSync(group);
}

const children: ChildProcess[] = [];
const groups: string[] = [];
function idle(): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  children.push(child);
  return child;
}
async function exitOf(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.signalCode ?? child.exitCode;
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
}

/**
 * The unified root hands nothing down on this host; the test groups under it need the one
 * controller it has, so the root hands it down for the test's duration (and stops after, when it
 * did not before). The root is exempt from the no-internal-process rule.
 */
let enabledAtRoot: string | undefined;
function handDownAtRoot(): void {
  if (!unified || !hierarchyController || enabledAtRoot !== undefined) return;
  if (words(join(unified, "cgroup.subtree_control")).includes(hierarchyController)) return;
  writeFileSync(join(unified, "cgroup.subtree_control"), `+${hierarchyController}`);
  enabledAtRoot = hierarchyController;
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(children.map(exitOf));
  for (const group of groups) {
    try {
      removeTree(group);
    } catch (error) {
      process.stderr.write(`could not remove ${group}: ${(error as Error).message}\n`);
    }
  }
  if (enabledAtRoot) writeFileSync(join(unified!, "cgroup.subtree_control"), `-${enabledAtRoot}`);
});

const skipReason = !unified ? "no cgroup v2 hierarchy is mounted" : !writable ? `${unified} is not writable (not root)` : !hierarchyController ? `${unified} offers no controller at all` : "";

describe.skipIf(skipReason !== "")(
  `cgroup v2 delegation on the real unified hierarchy (${unified ?? "none"}, controller ${hierarchyController ?? "none"})${skipReason ? ` [SKIPPED: ${skipReason}]` : ""}`,
  () => {
    it("moves the supervisor into its own leaf, hands the controller down to a service domain, starts the service in that domain's leaf, and the service finds the domain", async () => {
      handDownAtRoot();
      const base = join(unified!, `aide-test-${randomBytes(4).toString("hex")}`);
      mkdirSync(base);
      groups.push(base);
      const supervisor = idle();
      writeFileSync(join(base, "cgroup.procs"), String(supervisor.pid));

      const delegation = delegateCgroupsV2("tools", supervisor.pid!, unified!, [hierarchyController!]);
      expect(delegation.reason).toBeUndefined();
      expect(delegation.hierarchy).toBe("v2");
      const domain = join(base, `aide-tools-${supervisor.pid}`);
      expect(delegation.directories).toEqual([domain]);
      expect(delegation.procsFiles).toEqual([join(domain, "aide-service", "cgroup.procs")]);
      // No internal processes: the supervisor left the group that now hands the controller down.
      expect(v2PathOf(supervisor.pid!)).toBe(join(base.slice(unified!.length), supervisorLeaf));
      expect(words(join(base, "cgroup.procs"))).toEqual([]);
      expect(words(join(base, "cgroup.subtree_control"))).toContain(hierarchyController);
      expect(words(join(domain, "cgroup.subtree_control"))).toContain(hierarchyController);

      // The service starts as the launcher starts it: it joins the leaf, then execs.
      const script = `import(${JSON.stringify(runtimeEntry)}).then(async (r) => { const limits = await r.cgroupV2CommandDomain(${JSON.stringify(unified)}); const hierarchy = await r.cgroupV2CommandDomain(${JSON.stringify(unified)}, [${JSON.stringify(hierarchyController)}]); process.stdout.write(JSON.stringify({ limits, hierarchy })); })`;
      const service = spawnSync("/bin/sh", ["-c", `echo $$ > '${delegation.procsFiles[0]}' && exec "$@"`, "sh", process.execPath, "-e", script], { encoding: "utf8" });
      expect(service.status, service.stderr).toBe(0);
      const found = JSON.parse(service.stdout) as { limits: { domain?: string; reason?: string }; hierarchy: { domain?: string; reason?: string } };
      expect(found.hierarchy).toEqual({ domain });
      // memory and pids are not in this v2 hierarchy: the service says so rather than limit nothing silently.
      if (!hasLimitControllers) expect(found.limits.reason).toMatch(/does not hand down memory, pids/);

      // A command group beside the service's leaf, killed with cgroup.kill.
      const command = join(domain, "aide-tools-test-cmd-1");
      mkdirSync(command);
      const member = idle();
      writeFileSync(join(command, "cgroup.procs"), String(member.pid));
      expect(words(join(command, "cgroup.procs"))).toEqual([String(member.pid)]);
      await killCgroupV2Group(command);
      expect(await exitOf(member)).toBe("SIGKILL");

      // A second delegation from the same supervisor reuses its leaf and group.
      const mcp = delegateCgroupsV2("mcp", supervisor.pid!, unified!, [hierarchyController!]);
      expect(mcp.directories).toEqual([join(base, `aide-mcp-${supervisor.pid}`)]);
      mcp.release();
      expect(existsSync(join(base, `aide-mcp-${supervisor.pid}`))).toBe(false);
      rmdirSync(command);
      delegation.release();
      expect(existsSync(domain)).toBe(false);
    });

    it("refuses (with the reason and the systemd-run hint) to hand controllers down from a group that holds processes not its own", () => {
      handDownAtRoot();
      const base = join(unified!, `aide-test-${randomBytes(4).toString("hex")}`);
      mkdirSync(base);
      groups.push(base);
      const supervisor = idle();
      const stranger = idle();
      writeFileSync(join(base, "cgroup.procs"), String(supervisor.pid));
      writeFileSync(join(base, "cgroup.procs"), String(stranger.pid));
      const delegation = delegateCgroupsV2("tools", supervisor.pid!, unified!, [hierarchyController!]);
      expect(delegation.hierarchy).toBe("none");
      expect(delegation.reason).toContain(String(stranger.pid));
      expect(delegation.reason).toContain("systemd-run --user --scope -p Delegate=yes");
      // Nothing was moved.
      expect(v2PathOf(stranger.pid!)).toBe(base.slice(unified!.length));
    });

    it("says which controllers are missing when the hierarchy lacks memory and pids", () => {
      const base = join(unified!, `aide-test-${randomBytes(4).toString("hex")}`);
      mkdirSync(base);
      groups.push(base);
      const supervisor = idle();
      writeFileSync(join(base, "cgroup.procs"), String(supervisor.pid));
      const delegation = delegateCgroupsV2("tools", supervisor.pid!, unified!);
      if (hasLimitControllers) {
        expect(delegation.hierarchy).toBe("v2");
        delegation.release();
      } else {
        expect(delegation.hierarchy).toBe("none");
        expect(delegation.reason).toMatch(/not given the memory, pids controller/);
      }
    });
  },
);

describe("cgroup v2 per-command limit files (pure)", () => {
  it("writes memory.max, no swap, pids.max and a group OOM kill", () => {
    expect(cgroupV2LimitFiles({ maxProcesses: 256, maxMemoryBytes: 1 << 30 })).toEqual([
      ["memory.max", String(1 << 30)],
      ["memory.swap.max", "0"],
      ["pids.max", "256"],
      ["memory.oom.group", "1"],
    ]);
  });

  it("a process outside an aide-service leaf gets no domain, with the reason (a service never moves other processes)", async () => {
    const found = await cgroupV2CommandDomain(unified ?? "/sys/fs/cgroup");
    expect(found.domain).toBeUndefined();
    expect(found.reason).toMatch(/not a cgroup aide up delegated|no cgroup v2 path/);
  });
});

describe.skipIf(!hasLimitControllers)(
  `cgroup v2 limits enforced${hasLimitControllers ? "" : ` [SKIPPED: this host's v2 hierarchy offers only ${v2Controllers.join(" ") || "nothing"}; memory and pids are bound to v1 here]`}`,
  () => {
    it("a command in its group cannot fork past pids.max", async () => {
      const base = join(unified!, `aide-test-${randomBytes(4).toString("hex")}`);
      mkdirSync(base);
      groups.push(base);
      const supervisor = idle();
      writeFileSync(join(base, "cgroup.procs"), String(supervisor.pid));
      const delegation = delegateCgroupsV2("tools", supervisor.pid!, unified!);
      expect(delegation.hierarchy, delegation.reason).toBe("v2");
      const { createCgroupV2Group } = await import("@aide/runtime");
      const group = await createCgroupV2Group(delegation.directories[0]!, "aide-tools-test-bomb-1", { maxProcesses: 8, maxMemoryBytes: 256 * 1024 * 1024 });
      expect(readFileSync(join(group, "pids.max"), "utf8").trim()).toBe("8");
      const run = spawnSync("/bin/sh", ["-c", `echo $$ > '${group}/cgroup.procs' && for i in $(seq 1 32); do sleep 5 & done; wait`], { encoding: "utf8" });
      expect(run.stderr).toMatch(/fork|Resource temporarily unavailable|Cannot fork/i);
      await killCgroupV2Group(group);
      rmdirSync(group);
      delegation.release();
    });
  },
);
