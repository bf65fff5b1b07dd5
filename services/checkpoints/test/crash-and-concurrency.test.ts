import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call, callError } from "./helpers.js";
import { lockKey } from "../src/workspace/kv-workspace-lock.js";

/** Incompressible files, so storing them takes real time. */
function writeLargeTree(ws: string, folders: number, filesPerFolder: number, bytes: number): void {
  for (let f = 0; f < folders; f++) {
    mkdirSync(join(ws, `dir${f}`), { recursive: true });
    for (let i = 0; i < filesPerFolder; i++) writeFileSync(join(ws, `dir${f}`, `file${i}.bin`), randomBytes(bytes));
  }
}

function shadowDir(ws: string): string {
  const base = join(ws, ".aide", "checkpoints");
  return join(base, readdirSync(base)[0]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("crash safety, timeouts and concurrency (real service over the bus)", () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  let root: string;
  // A lease far beyond every commit's time budget: a killed holder's lock must be taken over
  // because it is known dead (its flock died with it), never because its lease ran out.
  const env = () => ({ AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info", AIDE_CHECKPOINT_LOCK_LEASE_MS: "600000" });

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-cp-crash-"));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", { env: env() });
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("survives SIGKILL in the middle of a commit: the restarted service takes over the dead holder's lock at once, the previous checkpoint stays valid and the next commit works", async () => {
    const ws = join(root, "killed");
    mkdirSync(ws);
    writeFileSync(join(ws, "keep.txt"), "before the crash\n");
    const first = (await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", label: "before" })).checkpoint.id;
    writeLargeTree(ws, 60, 50, 16_384);
    const gitdir = shadowDir(ws);
    const locks = await (await bus.connectAs("tester")).jetstream().views.kv("aide_workspace_locks");
    const held = async () => (await locks.get(lockKey(realpathSync(ws))))?.operation === "PUT";

    const pending = requestJson(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", label: "killed", timeout_ms: 120_000 }, 120_000).catch((error: Error) => error);
    let taken = false;
    for (let i = 0; i < 2000 && !taken; i++) {
      taken = await held();
      if (!taken) await sleep(5);
    }
    expect(taken).toBe(true);
    await sleep(150);
    await service.stop("SIGKILL");
    const outcome = await Promise.race([pending, sleep(2000).then(() => "no reply")]);
    expect(outcome).not.toEqual(expect.objectContaining({ ok: true }));
    expect(await held()).toBe(true); // left behind by the dead process (its lease has 10 minutes to run)

    service = await startServiceProcess(bus, "checkpoints", { env: env() });
    const listedAfterCrash = await call(client, "agent.checkpoints.list", { workspace: ws, session: "s1" });
    expect(listedAfterCrash.checkpoints.map((c: { id: string }) => c.id)).toEqual([first]);

    const next = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", label: "after restart", timeout_ms: 120_000 });
    expect(next.checkpoint.files_changed).toBe(3000);
    expect(service.logs()).toContain("took over a workspace lock whose holder on this host is dead");
    process.stderr.write(`takeover after the crash: ${/"waited_ms":(\d+)[^\n]*took over a workspace lock whose holder on this host is dead/.exec(service.logs())?.[1]} ms\n`);
    const listed = await call(client, "agent.checkpoints.list", { workspace: ws, session: "s1" });
    expect(listed.checkpoints.map((c: { id: string }) => c.id)).toEqual([first, next.checkpoint.id]);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
    expect(execFileSync("git", ["--git-dir", gitdir, "rev-list", next.checkpoint.id]).toString().trim().split("\n")).toEqual([next.checkpoint.id, first]);

    // History intact: the pre-crash checkpoint restores.
    const restored = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: first, mode: "files" });
    expect(restored.plan.created_since.length).toBe(3000);
    expect(readdirSync(ws).sort()).toEqual([".aide", "keep.txt"]);
    // Two 3,000-file commits and a restore: slow on a loaded machine.
  }, 150_000);

  it("abandons a commit that exceeds its time budget with CHECKPOINT_TIMEOUT, leaving history as it was", async () => {
    const ws = join(root, "slow");
    mkdirSync(ws);
    writeLargeTree(ws, 40, 50, 16_384);
    const error = await callError(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "too slow", timeout_ms: 30 });
    expect(error.code).toBe("CHECKPOINT_TIMEOUT");
    expect(error.message).toContain("30 ms");
    expect((await call(client, "agent.checkpoints.list", { workspace: ws })).checkpoints).toEqual([]);
    // Each abandoned attempt keeps what it hashed, so short budgets still get there.
    let attempts = 1;
    let done: any;
    while (done === undefined && attempts < 200) {
      attempts++;
      const reply = await requestJson(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "in time", timeout_ms: 400 }, 30_000);
      if (reply.ok) done = reply.result;
      else expect(reply.error.code).toBe("CHECKPOINT_TIMEOUT");
    }
    expect(done?.checkpoint.id).toMatch(/^[0-9a-f]{40}$/);
    expect(attempts).toBeGreaterThan(1);
    const gitdir = shadowDir(ws);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
    expect(execFileSync("git", ["--git-dir", gitdir, "ls-tree", "-r", "--name-only", done.checkpoint.id]).toString().trim().split("\n").length).toBe(2000);
  });

  it("serializes concurrent commits to one workspace: none is lost", async () => {
    const ws = join(root, "same");
    mkdirSync(ws);
    writeFileSync(join(ws, "f.txt"), "0\n");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", label: `c${i}`, changed_paths: ["f.txt"] })),
    );
    const ids = results.map((r) => r.checkpoint.id);
    expect(new Set(ids).size).toBe(8);
    const gitdir = shadowDir(ws);
    const head = readFileSync(join(gitdir, "refs", "aide", "runs", "s1", "r1"), "utf8").trim();
    const chain = execFileSync("git", ["--git-dir", gitdir, "rev-list", head]).toString().trim().split("\n");
    expect(chain.sort()).toEqual([...ids].sort());
  });

  it("commits two workspaces in parallel: a small one is not held up by a large one", async () => {
    const large = join(root, "parallel-large");
    const small = join(root, "parallel-small");
    mkdirSync(large);
    mkdirSync(small);
    writeLargeTree(large, 60, 50, 16_384);
    writeFileSync(join(small, "s.txt"), "small\n");
    const order: string[] = [];
    const largeDone = call(client, "agent.checkpoints.commit", { workspace: large, session: "s1", label: "large", timeout_ms: 120_000 }).then(() => order.push("large"));
    await sleep(0);
    for (let i = 0; i < 2000 && !existsSync(join(large, ".aide", "checkpoints")); i++) await sleep(5);
    const smallDone = call(client, "agent.checkpoints.commit", { workspace: small, session: "s1", label: "small" }).then(() => order.push("small"));
    await Promise.all([largeDone, smallDone]);
    expect(order).toEqual(["small", "large"]);
  });
});
