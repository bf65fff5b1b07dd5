import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@aide/runtime";
import { createSandbox, type Sandbox, type SandboxRunOptions } from "../src/index.js";
import { defaultSpawnHelperScript } from "../src/sandbox/spawn-helper.js";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { cgroupUsable, descendantsOf, hostProcessesWith } from "./host-processes.js";

const cgroupsUsable = cgroupUsable("pids") && cgroupUsable("memory");
if (!cgroupsUsable) console.warn("spawn-helper.test: cgroup v1 pids/memory not writable here; no shell is made ahead (so none by the helper) and these tests are skipped");

/** A process's parent and state, from /proc (undefined once it is gone). */
function statOf(pid: number): { parent: number; state: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, parent: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** Alive: there and not a zombie. */
const alive = (pid: number) => {
  const stat = statOf(pid);
  return stat !== undefined && stat.state !== "Z";
};

/** The spawn helpers that `parent` started (children running spawn-helper-process.js). */
function helpersOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return statOf(pid)?.parent === parent && alive(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("spawn-helper-process.js");
      } catch {
        return false;
      }
    });
}

/** Zombie children of `parent`: forked, exited, never reaped. */
function zombiesOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = statOf(pid);
      return stat?.parent === parent && stat.state === "Z";
    });
}

/** Host pids whose command line contains `needle` (zombies show as `[name] <defunct>`, so not). */
const pidsWith = (needle: string) => hostProcessesWith(needle).map((line) => Number(line.trim().split(/\s+/)[0]));

async function until(check: () => boolean, tries = 400): Promise<boolean> {
  for (let attempt = 0; attempt < tries && !check(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  return check();
}

/** The chain of parents of `pid` up to init. */
function ancestorsOf(pid: number): number[] {
  const chain: number[] = [];
  for (let current = statOf(pid)?.parent; current !== undefined && current > 1 && chain.length < 64; current = statOf(current)?.parent) chain.push(current);
  return chain;
}

/**
 * The shells and jails made ahead are forked by the spawn helper (spawn-helper.ts), off the
 * service's event loop. What must hold whoever forks them: each command still runs in a shell of
 * the helper's (not the service's), is killed with its group on abort and timeout, is reaped; the
 * helper has no environment; a helper that dies loses no command and is replaced; the service
 * stopping, even by SIGKILL, leaves nothing running.
 */
describe.skipIf(!cgroupsUsable)("the spawn helper (real bubblewrap and cgroups)", () => {
  let workspace: string;
  let sandbox: Sandbox;
  const lines: string[] = [];
  const options = (argv: string[], extra: Partial<SandboxRunOptions> = {}): SandboxRunOptions => ({ argv, workspace, cwd: workspace, network: false, timeoutMs: 30_000, ...extra });
  beforeAll(async () => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), "aide-spawner-")));
    sandbox = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("spawner-test", { level: "debug", destination: { write: (line: string) => void lines.push(line) } }) });
  });
  afterAll(async () => {
    await sandbox?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("runs each command in a shell the helper forked, and the helper has no environment", async () => {
    const token = `spawner-parent-${process.pid}`;
    const first = new AbortController();
    const running = sandbox.run(options(["sh", "-c", `sleep 30 # ${token}`], { signal: first.signal }));
    expect(await until(() => pidsWith(token).length > 0), "the command started").toBe(true);
    const helpers = helpersOf(process.pid);
    expect(helpers).toHaveLength(1);
    // The command's bubblewrap (and so everything in it) descends from the helper, not from this process directly.
    const command = pidsWith(token)[0]!;
    expect(ancestorsOf(command)).toContain(helpers[0]);
    expect(descendantsOf(process.pid).filter((child) => statOf(child.pid)?.parent === process.pid && child.args[0] === "bwrap")).toEqual([]);
    // Only the IPC channel's own variables (Node adds them); none of this process's, secrets included.
    expect(
      readFileSync(`/proc/${helpers[0]}/environ`, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.split("=")[0])
        .sort(),
    ).toEqual(["NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"]);
    // And what it forks has none at all: the shell waiting for the next command.
    const waiting = descendantsOf(helpers[0]!).filter((child) => statOf(child.pid)?.parent === helpers[0] && child.args.join(" ") === "/bin/sh -s");
    expect(waiting.length).toBeGreaterThan(0);
    for (const shell of waiting) expect(readFileSync(`/proc/${shell.pid}/environ`, "utf8")).toBe("");
    const controller = new AbortController();
    const aborted = sandbox.run(options(["sh", "-c", `sleep 31 # ${token}-aborted`], { signal: controller.signal }));
    expect(await until(() => pidsWith(`${token}-aborted`).length > 0)).toBe(true);
    controller.abort();
    expect(await aborted).toMatchObject({ aborted: true });
    expect(pidsWith(`${token}-aborted`)).toEqual([]);
    // The first one by its deadline: killed with its group, nothing left.
    const timed = await sandbox.run(options(["sh", "-c", `sleep 32 # ${token}-timed`], { timeoutMs: 1_000 }));
    expect(timed.timedOut).toBe(true);
    expect(pidsWith(`${token}-timed`)).toEqual([]);
    first.abort();
    expect(await running).toMatchObject({ aborted: true });
    expect(pidsWith(token)).toEqual([]);
  });

  it("reaps every shell it forked: no zombie is left with the helper or with this process", async () => {
    for (let index = 0; index < 6; index += 1) expect((await sandbox.run(options(["sh", "-c", "exit 4"]))).exitCode).toBe(4);
    const [helper] = helpersOf(process.pid);
    expect(helper).toBeDefined();
    expect(await until(() => zombiesOf(helper!).length === 0 && zombiesOf(process.pid).length === 0)).toBe(true);
  });

  it("a helper killed mid-run: its running command is reported killed (never hangs), nothing is left, the next command runs in a new helper's shell", async () => {
    const token = `spawner-lost-${process.pid}`;
    const running = sandbox.run(options(["sh", "-c", `sleep 40 # ${token}`]));
    expect(await until(() => pidsWith(token).length > 0)).toBe(true);
    const [helper] = helpersOf(process.pid);
    expect(helper).toBeDefined();
    process.kill(helper!, "SIGKILL");
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.interrupted).toMatch(/spawn helper stopped/);
    expect(await until(() => pidsWith(token).length === 0), "the command died with its helper").toBe(true);
    expect(lines.some((line) => line.includes('"code":"SANDBOX_SPAWNER_LOST"') && line.includes('"level":50'))).toBe(true);
    // The next commands: one may start in a shell the service forked itself (the lost helper's was
    // gone), then a new helper forks them again.
    expect((await sandbox.run(options(["sh", "-c", "echo after"]))).stdout).toContain("after");
    expect((await sandbox.run(options(["sh", "-c", "echo again"]))).stdout).toContain("again");
    const replacement = helpersOf(process.pid);
    expect(replacement).toHaveLength(1);
    expect(replacement[0]).not.toBe(helper);
    const next = `spawner-next-${process.pid}`;
    const again = sandbox.run(options(["sh", "-c", `sleep 1 # ${next}`]));
    expect(await until(() => pidsWith(next).length > 0)).toBe(true);
    expect(ancestorsOf(pidsWith(next)[0]!)).toContain(replacement[0]);
    expect((await again).exitCode).toBe(0);
  });

  it("a helper that cannot start loses no command: the service forks the shells itself and says so", async () => {
    const seen: string[] = [];
    const broken = await createSandbox({
      unsafeNoSandbox: false,
      logger: createLogger("spawner-broken", { level: "debug", destination: { write: (line: string) => void seen.push(line) } }),
      spawnHelperScript: join(workspace, "no-such-helper.js"),
    });
    try {
      const givenUp = () => seen.filter((line) => line.includes("spawns every command's shell itself from now on")).length;
      for (let index = 0; index < 12 && givenUp() === 0; index += 1) expect((await broken.run(options(["sh", "-c", `echo run-${index}`]))).stdout).toContain(`run-${index}`);
      expect(seen.some((line) => line.includes('"code":"SANDBOX_SPAWNER_LOST"') && line.includes('"level":50'))).toBe(true);
      // Given up after its losses (4 in a minute): it is not started over and over, and commands still run.
      expect(givenUp()).toBe(1);
      const losses = seen.filter((line) => line.includes('"level":50')).length;
      for (let index = 0; index < 3; index += 1) expect((await broken.run(options(["sh", "-c", `echo later-${index}`]))).stdout).toContain(`later-${index}`);
      expect(seen.filter((line) => line.includes('"level":50')).length).toBe(losses);
    } finally {
      await broken.close();
    }
    expect(helpersOf(process.pid)).toHaveLength(1);
  });
});

describe("the spawn helper whose service is gone while a pipe is being handed over", () => {
  it("kills what it forked and exits, though Node never says 'disconnect' then (the pipe's acknowledgement never comes)", async () => {
    // The helper's channel is a plain socket here that never acknowledges a handle: what a service
    // SIGKILLed in the middle of a hand-over leaves.
    const helper = spawn(process.execPath, [defaultSpawnHelperScript], { env: { NODE_CHANNEL_FD: "3", NODE_CHANNEL_SERIALIZATION_MODE: "json" }, stdio: ["ignore", "ignore", "ignore", "pipe"] });
    const channel = helper.stdio[3] as Socket;
    let received = "";
    channel.on("data", (chunk: Buffer) => (received += chunk.toString()));
    const exited = new Promise((resolve) => helper.once("exit", resolve));
    channel.write(`${JSON.stringify({ type: "spawn", id: 1, file: "/bin/sh", args: ["-s"] })}\n`);
    expect(await until(() => received.includes("NODE_HANDLE")), "the helper is handing over the first pipe").toBe(true);
    const forked = descendantsOf(helper.pid!).map((child) => child.pid);
    expect(forked.length).toBe(1);
    channel.destroy();
    await exited;
    expect(await until(() => forked.every((pid) => !alive(pid))), "the shell it forked is gone").toBe(true);
  });
});

describe.skipIf(!cgroupsUsable)("the tools service stopped with commands in flight leaves nothing running", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const inFlight = async (token: string) => {
    // Never answered (the service is stopped under it): its rejection is expected.
    const reply = h.exec("run_command", { command: `sleep 60; echo ${token}`, timeout_ms: 60_000 });
    void reply.catch(() => undefined);
    expect(await until(() => pidsWith(`echo ${token}`).length > 0), "the command is running").toBe(true);
    const service = h.service.child.pid!;
    const helpers = helpersOf(service);
    expect(helpers).toHaveLength(1);
    expect(ancestorsOf(pidsWith(`echo ${token}`)[0]!)).toContain(helpers[0]);
    // Everything the helper forked: the command, the shell waiting for the next one, any prepared jail.
    return { helper: helpers[0]!, forked: descendantsOf(helpers[0]!).map((child) => child.pid) };
  };

  it("SIGTERM: the command is killed, the helper exits, nothing stays", async () => {
    const token = `stopped-${process.pid}`;
    const { helper, forked } = await inFlight(token);
    expect(forked.length).toBeGreaterThan(1);
    await h.service.stop("SIGTERM");
    expect(await until(() => !alive(helper) && pidsWith(`echo ${token}`).length === 0)).toBe(true);
    expect(forked.filter(alive)).toEqual([]);
    await h.restart();
  });

  it("SIGKILL: the helper sees its channel close, kills the command's group and exits", async () => {
    const token = `killed-${process.pid}`;
    const { helper, forked } = await inFlight(token);
    expect(forked.length).toBeGreaterThan(1);
    await h.service.stop("SIGKILL");
    expect(await until(() => !alive(helper)), "the helper died with the service").toBe(true);
    expect(await until(() => pidsWith(`echo ${token}`).length === 0), "the command died with it").toBe(true);
    expect(await until(() => forked.filter(alive).length === 0), "and so did every shell it had forked").toBe(true);
    await h.restart();
  });
});
