import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call, callError, snapshotTree } from "./helpers.js";

describe("checkpoints service over the bus", () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-cp-"));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info" } });
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  function workspace(name: string): string {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  it("commits, lists and restores a workspace", async () => {
    const ws = workspace("basic");
    writeFileSync(join(ws, "a.txt"), "one\n");
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "b.ts"), "export const b = 1;\n");
    const first = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", message_index: 2, label: "before edits" });
    expect(first.checkpoint.id).toMatch(/^[0-9a-f]{40}$/);
    expect(first.checkpoint.message_index).toBe(2);
    expect(readFileSync(join(ws, ".aide", ".gitignore"), "utf8")).toBe("*\n");

    writeFileSync(join(ws, "a.txt"), "two\n");
    writeFileSync(join(ws, "c.txt"), "new\n");
    const second = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", message_index: 5, label: "after edits", changed_paths: ["a.txt", "c.txt"] });
    expect(second.checkpoint.files_changed).toBe(2);

    const listed = await call(client, "agent.checkpoints.list", { workspace: ws, session: "s1" });
    expect(listed.checkpoints.map((c: { id: string }) => c.id)).toEqual([first.checkpoint.id, second.checkpoint.id]);

    const task = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: first.checkpoint.id, mode: "task" });
    expect(task.checkpoint.message_index).toBe(2);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("two\n");

    const restored = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: first.checkpoint.id, mode: "files_and_task" });
    expect(restored.applied).toBe(true);
    expect(restored.plan).toEqual({ modified: ["a.txt"], created_since: ["c.txt"], deleted_since: [] });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ws, "c.txt"))).toBe(false);
  });

  it("knows what a restore wrote without reading it back: nothing left to commit, and an edit made at once is still seen", async () => {
    const ws = workspace("restore-then-edit");
    for (const folder of ["keep", "gone"]) {
      mkdirSync(join(ws, folder));
      for (let i = 0; i < 30; i++) writeFileSync(join(ws, folder, `f${i}.txt`), `${folder} ${i} original\n`);
    }
    writeFileSync(join(ws, "keep", "run.sh"), "#!/bin/sh\n");
    chmodSync(join(ws, "keep", "run.sh"), 0o755);
    const original = snapshotTree(ws);
    const before = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "before" });
    for (let i = 0; i < 30; i += 3) writeFileSync(join(ws, "keep", `f${i}.txt`), `keep ${i} CHANGED!\n`);
    chmodSync(join(ws, "keep", "run.sh"), 0o644);
    rmSync(join(ws, "gone"), { recursive: true });
    const after = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "after", changed_paths: ["keep", "gone"] });

    const restored = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: before.checkpoint.id, mode: "files" });
    expect(restored.plan.modified).toHaveLength(11);
    expect(restored.plan.deleted_since).toHaveLength(30);
    expect(snapshotTree(ws)).toEqual(original);
    const unchanged = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "unchanged" });
    expect(unchanged.checkpoint.files_changed).toBe(0);

    // Same size, right after the restore wrote the files (racy stats are hashed again).
    await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: after.checkpoint.id, mode: "files" });
    expect(existsSync(join(ws, "gone"))).toBe(false);
    const again = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: before.checkpoint.id, mode: "files" });
    expect(again.plan.deleted_since).toHaveLength(30);
    writeFileSync(join(ws, "keep", "f3.txt"), "keep 3 ORIGINAL\n");
    writeFileSync(join(ws, "gone", "f7.txt"), "gone 7 ORIGINAL\n");
    const edited = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "edited" });
    expect(edited.checkpoint.files_changed).toBe(2);
    const diff = await call(client, "agent.checkpoints.diff", { workspace: ws, from: before.checkpoint.id, to: edited.checkpoint.id });
    expect(diff.files.map((file: { path: string }) => file.path).sort()).toEqual(["gone/f7.txt", "keep/f3.txt"]);
  });

  it("refuses workspaces outside the roots and bad requests, and keeps serving", async () => {
    const outside = mkdtempSync(join(tmpdir(), "aide-outside-"));
    try {
      expect((await callError(client, "agent.checkpoints.commit", { workspace: outside, session: "s1" })).code).toBe("WORKSPACE_NOT_ALLOWED");
      expect((await callError(client, "agent.checkpoints.list", { workspace: join(root, "missing") })).code).toBe("WORKSPACE_NOT_FOUND");
      writeFileSync(join(root, "a-file.txt"), "not a folder\n");
      expect((await callError(client, "agent.checkpoints.list", { workspace: join(root, "a-file.txt") })).code).toBe("WORKSPACE_NOT_A_DIRECTORY");
      expect((await callError(client, "agent.checkpoints.commit", { workspace: root, session: "bad session" })).code).toBe("VALIDATION");
      const ws = workspace("unknown-checkpoint");
      const error = await callError(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: "0".repeat(40) });
      expect(error.code).toBe("CHECKPOINT_NOT_FOUND");
      expect(existsSync(join(outside, ".aide"))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("refuses a workspace whose .aide is a symlink planted to redirect writes", async () => {
    const ws = workspace("planted");
    const elsewhere = mkdtempSync(join(tmpdir(), "aide-elsewhere-"));
    try {
      symlinkSync(elsewhere, join(ws, ".aide"));
      writeFileSync(join(ws, "f.txt"), "f\n");
      const error = await callError(client, "agent.checkpoints.commit", { workspace: ws, session: "s1" });
      expect(error.code).toBe("CHECKPOINT_FAILED");
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("starts over cleanly when the shadow repository is deleted while the service runs", async () => {
    const ws = workspace("deleted-shadow");
    writeFileSync(join(ws, "f.txt"), "one\n");
    await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "one" });
    // Just after its reply the service may still be letting go of the lock (the flock helper
    // reopens its lock file there): a delete that meets it is tried again, as a user would.
    for (let attempt = 0; ; attempt += 1) {
      try {
        rmSync(join(ws, ".aide"), { recursive: true, force: true });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY" || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    const again = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "two" });
    expect((await call(client, "agent.checkpoints.list", { workspace: ws })).checkpoints.map((c: { id: string }) => c.id)).toEqual([again.checkpoint.id]);
    const base = join(ws, ".aide", "checkpoints");
    execFileSync("git", ["--git-dir", join(base, readdirSync(base)[0]), "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
  });

  it("never trusts a stat cache that names objects the repository lost", async () => {
    const ws = workspace("lost-objects");
    writeFileSync(join(ws, "f.txt"), "content\n");
    await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "one" });
    await service.stop(); // a graceful stop writes the stat cache
    const base = join(ws, ".aide", "checkpoints");
    const gitdir = join(base, readdirSync(base)[0]);
    expect(readdirSync(gitdir)).toContain("aide-stat-cache");
    rmSync(join(gitdir, "objects", "pack"), { recursive: true, force: true });
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info" } });
    const next = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s2", label: "after the loss" });
    const blobs = execFileSync("git", ["--git-dir", gitdir, "ls-tree", "-r", next.checkpoint.id]).toString().trim().split("\n");
    expect(blobs).toHaveLength(1);
    const oid = blobs[0].split(/\s+/)[2];
    expect(execFileSync("git", ["--git-dir", gitdir, "cat-file", "-p", oid]).toString()).toBe("content\n");
  });
});
