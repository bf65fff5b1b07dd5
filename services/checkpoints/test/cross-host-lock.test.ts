import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess, type ServiceWrapper } from "../../../tests/helpers/service-process.js";
import { lockKey } from "../src/workspace/kv-workspace-lock.js";
import { call } from "./helpers.js";

const hasBwrap = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "true"]).status === 0;

/**
 * Each service in its own PID namespace, as on its own host: a pid in a lock file means nothing to
 * the other, so only a lock both see on the bus can serialize them.
 */
const ownPidNamespace: ServiceWrapper = (argv, env) => ({ file: "bwrap", args: ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--", ...argv], env });

/** Host pids of every process below `pid` (bubblewrap's init and the service inside it). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const [child, ppid] of parents)
      if (ppid === parent) {
        found.push(child);
        visit(child);
      }
  };
  visit(pid);
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Log lines reach the pipe a moment after the reply: waits (bounded) for one. */
async function waitForLog(service: ServiceProcess, text: string): Promise<boolean> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (service.logs().includes(text)) return true;
    await sleep(50);
  }
  return false;
}

function shadowDir(ws: string): string {
  const base = join(ws, ".aide", "checkpoints");
  return join(base, readdirSync(base)[0]!);
}

/** Issue 14 item 4: the checkpoint lock is a JetStream KV lease, safe across hosts. */
describe.skipIf(!hasBwrap)(`two checkpoints services on one workspace${hasBwrap ? "" : " [SKIPPED: bwrap cannot make a PID namespace here]"}`, () => {
  let bus: TestBus;
  let root: string;
  let client: NatsConnection;
  const services: ServiceProcess[] = [];
  const env = () => ({ AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "debug", AIDE_CHECKPOINT_LOCK_LEASE_MS: "600000" });
  const start = async () => {
    const service = await startServiceProcess(bus, "checkpoints", { env: env(), wrap: ownPidNamespace });
    services.push(service);
    // A second instance is "up" as soon as the first answers the ping: wait for its own line.
    expect(await waitForLog(service, '"msg":"checkpoints ready"')).toBe(true);
    return service;
  };

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "aide-cp-lock-")));
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    for (const service of services) await service.stop("SIGKILL");
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("serialize concurrent commits: every checkpoint is in the chain, none lost", async () => {
    const first = await start();
    const second = await start();
    const ws = join(root, "shared");
    mkdirSync(ws);
    writeFileSync(join(ws, "f.txt"), "0\n");
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", label: `c${i}`, changed_paths: ["f.txt"] })),
    );
    const ids = results.map((result) => result.checkpoint.id as string);
    expect(new Set(ids).size).toBe(12);
    const gitdir = shadowDir(ws);
    const head = readFileSync(join(gitdir, "refs", "aide", "runs", "s1", "r1"), "utf8").trim();
    const chain = execFileSync("git", ["--git-dir", gitdir, "rev-list", head]).toString().trim().split("\n");
    expect(chain.sort()).toEqual([...ids].sort());
    // Both processes took part (the queue group spreads the requests).
    expect(await waitForLog(first, '"endpoint":"commit"')).toBe(true);
    expect(await waitForLog(second, '"endpoint":"commit"')).toBe(true);
    await first.stop("SIGKILL");
    await second.stop("SIGKILL");
  });

  it("a holder killed with SIGKILL in its own PID namespace: the next service takes its lock over at once (the kernel lock died with it), not after the lease", async () => {
    const kv = await (await bus.connectAs("tester")).jetstream().views.kv("aide_workspace_locks");
    const holder = await start();
    const inside = descendants(holder.child.pid!);
    // Freeze the holder while it holds the lock (so it can neither finish nor release); a commit
    // that ended between the look and the freeze is tried again on a fresh workspace.
    let ws = "";
    let frozen = false;
    for (let round = 0; round < 3 && !frozen; round += 1) {
      ws = join(root, `killed-${round}`);
      for (let folder = 0; folder < 60; folder += 1) {
        mkdirSync(join(ws, `dir${folder}`), { recursive: true });
        for (let file = 0; file < 50; file += 1) writeFileSync(join(ws, `dir${folder}`, `file${file}.bin`), randomBytes(16_384));
      }
      void call(client, "agent.checkpoints.commit", { workspace: ws, session: "s2", run: "r1", label: "big", timeout_ms: 120_000 }, 120_000).catch(() => undefined);
      let held = false;
      for (let attempt = 0; attempt < 3000 && !held; attempt += 1) {
        held = (await kv.get(lockKey(ws)))?.operation === "PUT";
        if (!held) await sleep(10);
      }
      expect(held).toBe(true);
      for (const pid of [...inside].reverse()) process.kill(pid, "SIGSTOP");
      frozen = (await kv.get(lockKey(ws)))?.operation === "PUT";
      if (!frozen) for (const pid of inside) process.kill(pid, "SIGCONT");
    }
    expect(frozen).toBe(true);
    for (const pid of [...inside].reverse()) process.kill(pid, "SIGKILL");
    await holder.stop("SIGKILL");
    const pending = undefined;
    void pending;

    const next = await start();
    writeFileSync(join(ws, "after.txt"), "after the crash\n");
    const done = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s2", run: "r1", label: "after", timeout_ms: 120_000 }, 150_000);
    expect(done.checkpoint.id).toMatch(/^[0-9a-f]{40}$/);
    expect(await waitForLog(next, "took over a workspace lock whose holder on this host is dead"), next.logs()).toBe(true);
    // Released on completion (right after the reply): the key holds no lock once the release has landed.
    let stillHeld = true;
    for (let attempt = 0; attempt < 500 && stillHeld; attempt += 1) {
      stillHeld = (await kv.get(lockKey(ws)))?.operation === "PUT";
      if (stillHeld) await sleep(10);
    }
    expect(stillHeld, next.logs()).toBe(false);
  }, 300_000);
});
