import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call, callError } from "./helpers.js";

describe("usage, prune and session deletion (real service over the bus)", () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-cp-prune-"));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info" } });
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("keeps the last N tasks, packs what remains into one pack, and deletes a session's checkpoints", async () => {
    const ws = join(root, "ws");
    mkdirSync(join(ws, "src"), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(ws, "src", `f${i}.txt`), `file ${i}\n`.repeat(200));
    const ids: Record<string, string[]> = {};
    const commit = async (session: string, run: string, step: number) => {
      writeFileSync(join(ws, "src", `f${step % 50}.txt`), `edit ${session} ${run} ${step}\n`.repeat(100));
      const id = (await call(client, "agent.checkpoints.commit", { workspace: ws, session, run, label: `${run}-${step}` })).checkpoint.id;
      (ids[`${session}/${run}`] ??= []).push(id);
      return id;
    };
    let step = 0;
    for (const run of ["r1", "r2", "r3", "r4", "r5"]) {
      await commit("s1", run, step++);
      await commit("s1", run, step++);
    }
    await commit("s2", "r1", step++);

    const usage = await call(client, "agent.checkpoints.usage", { workspace: ws });
    expect(usage.checkpoints).toBe(11);
    expect(usage.packs).toBeGreaterThan(10);
    expect(usage.loose_objects).toBe(11); // the commit objects

    const pruned = await call(client, "agent.checkpoints.prune", { workspace: ws, keep_tasks: 2 });
    expect(pruned.before.checkpoints).toBe(11);
    expect(pruned.after.checkpoints).toBe(3);
    expect(pruned.after.packs).toBe(1);
    expect(pruned.after.loose_objects).toBe(0);
    expect(pruned.after.bytes).toBeLessThan(pruned.before.bytes);
    const s1 = (await call(client, "agent.checkpoints.list", { workspace: ws, session: "s1" })).checkpoints.map((c: { id: string }) => c.id);
    expect(s1).toEqual(ids["s1/r5"]);
    expect((await callError(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: ids["s1/r1"][0], dry_run: true })).code).toBe("CHECKPOINT_NOT_FOUND");

    const gitdir = join(ws, ".aide", "checkpoints", readdirSync(join(ws, ".aide", "checkpoints"))[0]);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });

    // Commits after a prune still find every object they reuse from the cache.
    const after = await commit("s1", "r6", step++);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
    await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: ids["s1/r5"][0], mode: "files" });
    expect(readFileSync(join(ws, "src", "f8.txt"), "utf8")).toBe("edit s1 r5 8\n".repeat(100));
    await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: after, mode: "files" });

    // keep_tasks within one session leaves other sessions alone.
    await call(client, "agent.checkpoints.prune", { workspace: ws, session: "s1", keep_tasks: 1 });
    expect((await call(client, "agent.checkpoints.list", { workspace: ws, session: "s1" })).checkpoints.map((c: { id: string }) => c.id)).toEqual([after]);
    expect((await call(client, "agent.checkpoints.list", { workspace: ws, session: "s2" })).checkpoints.map((c: { id: string }) => c.id)).toEqual(ids["s2/r1"]);

    const deleted = await call(client, "agent.checkpoints.prune", { workspace: ws, session: "s2", delete_session: true });
    expect(deleted.after.checkpoints).toBe(1);
    expect((await call(client, "agent.checkpoints.list", { workspace: ws, session: "s2" })).checkpoints).toEqual([]);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });

    // A crash right after a prune: the stat cache on disk names only objects that survived it.
    await service.stop("SIGKILL");
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info" } });
    const final = await commit("s1", "r7", step++);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
    expect(execFileSync("git", ["--git-dir", gitdir, "ls-tree", "-r", "--name-only", final]).toString().trim().split("\n").length).toBe(50);
  });

  it("reports zero usage for a workspace that never had a checkpoint, without creating anything", async () => {
    const ws = join(root, "fresh");
    mkdirSync(ws);
    expect(await call(client, "agent.checkpoints.usage", { workspace: ws })).toEqual({ bytes: 0, checkpoints: 0, packs: 0, loose_objects: 0 });
    expect((await call(client, "agent.checkpoints.list", { workspace: ws })).checkpoints).toEqual([]);
    expect(readdirSync(ws)).toEqual([]);
  });
});
