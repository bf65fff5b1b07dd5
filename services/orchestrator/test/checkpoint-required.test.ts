import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { startServiceProcess } from "../../../tests/helpers/service-process.js";
import { call } from "./support/scripted-calls.js";
import { sampleProject, stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const canMount = process.getuid?.() === 0;

/**
 * Issue 20: no mutation without its checkpoint unless the person says so. An auto-approved
 * write_file whose checkpoint cannot be taken (the checkpoints service is dead; the disk is full)
 * is not run: an approval states why, with the code, and waits for retry, proceed without, or stop.
 */
describe.skipIf(skipReason !== "")(`a failed checkpoint stops an auto-approved write until the person decides${skipReason}`, () => {
  let stack: Stack;
  const script = (file: string) => [{ text: call.write(file, `written to ${file}`) }, { text: call.complete(`Wrote ${file}.`) }];
  beforeAll(async () => {
    stack = await startStack(script("a.txt"), {
      models: { s2: script("b.txt"), s3: script("c.txt"), s4: script("d.txt"), s5: script("e.txt"), s6: script("f.txt") },
      orchestratorEnv: { AIDE_DISK_FULL_RETRY_MS: "300" },
    });
  }, 120_000);
  afterAll(async () => {
    const full = join(stack?.dir ?? "/nonexistent", "full");
    if (existsSync(full)) execFileSync("umount", ["-l", full], { stdio: "ignore" });
    await stack?.stop();
  });

  const approvalOf = (session: string, code: string, after = 0) =>
    stack.waitFor((e) => e.session === session && e.seq > after && e.type === "approval.requested" && (e.payload as { checkpoint_failed?: { code: string } }).checkpoint_failed?.code === code, 60_000);
  const idOf = (event: AgentEvent) => (event.payload as { approval: string }).approval;
  const start = async (model: string, workspace = stack.workspace) =>
    (await stack.command("start", { allow_concurrent: true, task: "Write the file", workspace, model, auto_approve: { edits: true, commands: [] } })).result.session as string;

  async function stopCheckpoints(): Promise<void> {
    await stack.services.checkpoints.stop();
  }
  async function startCheckpoints(): Promise<void> {
    stack.services.checkpoints = await startServiceProcess(stack.bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: stack.dir, AIDE_LOG_LEVEL: "info" }, pinger: stack.tester });
  }

  it("a dead checkpoints service: CHECKPOINT_UNAVAILABLE, nothing written; approve alone is refused; retry once it is back takes the checkpoint and writes", async () => {
    await stopCheckpoints();
    const session = await start("s1");
    const asked = await approvalOf(session, "CHECKPOINT_UNAVAILABLE");
    expect((asked.payload as { tool: string }).tool).toBe("write_file");
    expect((asked.payload as { checkpoint_failed: { message: string } }).checkpoint_failed.message).toMatch(/No checkpoint could be taken/);
    const failed = await stack.waitFor((e) => e.session === session && e.type === "checkpoint.failed");
    expect((failed.payload as { error: { code: string } }).error.code).toBe("CHECKPOINT_UNAVAILABLE");
    expect(existsSync(join(stack.workspace, "a.txt"))).toBe(false);
    const bare = await stack.command("decision", { session, approval: idOf(asked), decision: "approve" });
    expect(bare.ok).toBe(false);
    expect(bare.error.code).toBe("APPROVAL_CONFIRMATION_REQUIRED");
    await startCheckpoints();
    const retried = await stack.command("decision", { session, approval: idOf(asked), decision: "approve", checkpoint: "retry" });
    expect(retried.ok, JSON.stringify(retried)).toBe(true);
    const created = await stack.waitFor((e) => e.session === session && e.type === "checkpoint.created");
    const written = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "write_file");
    expect(created.seq).toBeLessThan(written.seq);
    expect(readFileSync(join(stack.workspace, "a.txt"), "utf8")).toContain("written to a.txt");
    await stack.terminal(session);
  });

  it("a dead checkpoints service: proceed without writes the file; stop does not", async () => {
    await stopCheckpoints();
    try {
      const proceed = await start("s2");
      const asked = await approvalOf(proceed, "CHECKPOINT_UNAVAILABLE");
      expect(existsSync(join(stack.workspace, "b.txt"))).toBe(false);
      expect((await stack.command("decision", { session: proceed, approval: idOf(asked), decision: "approve", checkpoint: "proceed_without" })).ok).toBe(true);
      const done = await stack.waitFor((e) => e.session === proceed && e.type === "tool.completed" && e.payload.tool === "write_file");
      expect(done.payload.is_error).toBe(false);
      expect(existsSync(join(stack.workspace, "b.txt"))).toBe(true);
      await stack.terminal(proceed);

      const stop = await start("s3");
      const again = await approvalOf(stop, "CHECKPOINT_UNAVAILABLE");
      expect((await stack.command("decision", { session: stop, approval: idOf(again), decision: "reject", feedback: "not without a checkpoint" })).ok).toBe(true);
      const refused = await stack.waitFor((e) => e.session === stop && e.type === "tool.completed" && e.payload.tool === "write_file");
      expect(refused.payload.is_error).toBe(true);
      await stack.terminal(stop);
      expect(existsSync(join(stack.workspace, "c.txt"))).toBe(false);
    } finally {
      await startCheckpoints();
    }
  });

  it("survives an orchestrator restart: the same approval is offered again with its reason, and proceeding writes once", async () => {
    await stopCheckpoints();
    try {
      const session = await start("s6");
      const first = await approvalOf(session, "CHECKPOINT_UNAVAILABLE");
      await stack.services.orchestrator.stop("SIGKILL");
      await stack.startOrchestrator();
      const again = await stack.waitFor((e) => e.session === session && e.type === "approval.requested" && e.seq > first.seq, 60_000);
      expect(idOf(again)).toBe(idOf(first));
      expect(again.payload).toMatchObject({ checkpoint_failed: { code: "CHECKPOINT_UNAVAILABLE" } });
      expect(existsSync(join(stack.workspace, "f.txt"))).toBe(false);
      expect((await stack.command("decision", { session, approval: idOf(again), decision: "approve", checkpoint: "proceed_without" })).ok).toBe(true);
      await stack.terminal(session);
      expect(readFileSync(join(stack.workspace, "f.txt"), "utf8")).toContain("written to f.txt");
      expect(stack.events.filter((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "write_file")).toHaveLength(1);
    } finally {
      await startCheckpoints();
    }
  });

  it.skipIf(!canMount)(
    "a full disk (a small tmpfs): DISK_FULL pauses the run (nothing written, status paused); freeing space resumes it, the checkpoint is taken and the write runs once",
    async () => {
      const full = join(stack.dir, "full");
      mkdirSync(full);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", full]);
      cpSync(sampleProject, full, { recursive: true });
      // Fill it to the last byte.
      const filler = join(full, "filler.bin");
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
      } catch {
        // dd stops with "No space left on device": that is the point.
      }
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}-tail`, "bs=512"], { stdio: "ignore" });
      } catch {
        // ditto, for the last blocks
      }

      const session = await start("s4", full);
      const failed = await stack.waitFor((e) => e.session === session && e.type === "checkpoint.failed", 60_000);
      expect(failed.payload).toMatchObject({ error: { code: "DISK_FULL" } });
      const paused = await stack.waitFor((e) => e.session === session && e.type === "run.state" && e.payload.state === "paused", 60_000);
      expect(paused.payload).toMatchObject({ state: "paused", reason: "disk_full" });
      const status = await stack.command("status", { session });
      expect(status.result).toMatchObject({ state: "paused", paused: { reason: "disk_full" } });
      expect(existsSync(join(full, "d.txt"))).toBe(false);
      // No question for the person: a full disk is waited out, not decided.
      expect(stack.events.some((e) => e.session === session && e.type === "approval.requested")).toBe(false);

      rmSync(`${filler}-tail`, { force: true });
      writeFileSync(filler, "");
      const resumed = await stack.waitFor((e) => e.session === session && e.seq > paused.seq && e.type === "run.state", 60_000);
      expect(resumed.payload).toMatchObject({ state: "running" });
      await stack.waitFor((e) => e.session === session && e.type === "checkpoint.created", 60_000);
      const wrote = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "write_file", 60_000);
      expect(wrote.payload.is_error, JSON.stringify(wrote.payload)).toBe(false);
      await stack.terminal(session);
      expect(readFileSync(join(full, "d.txt"), "utf8")).toContain("written to d.txt");
      expect(stack.events.filter((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "write_file")).toHaveLength(1);
      expect(stack.events.filter((e) => e.session === session && e.type === "checkpoint.failed")).toHaveLength(1);
    },
  );

  it("every event of these runs fits the contract", () => {
    expect(stack.invalidEvents).toEqual([]);
  });
});
