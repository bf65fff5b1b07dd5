import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { sampleProject, stackSkipReason, startStack, type Stack } from "./support/stack.js";
import { fillDisk, mountSmallDisk } from "../../../tests/helpers/small-disk.js";

const skipReason = stackSkipReason() || (process.getuid?.() === 0 ? "" : " [SKIPPED: mounting a small tmpfs needs root]");
const content = "a line of the large file that does not fit\n".repeat(7_000);

/**
 * Issue 14: a tool write that finds the disk full pauses the run as a checkpoint on a full disk
 * does (`run.state paused`, reason `disk_full`, status `paused`, no question for the person);
 * freeing space resumes it, the write runs and the run goes on. The tools service answers the
 * write with DISK_FULL on a real 2 MB tmpfs that has room for the checkpoint, not for the file.
 */
describe.skipIf(skipReason !== "")(`a tool write on a full disk pauses the run${skipReason}`, () => {
  let stack: Stack;
  let full = "";
  let mounted = false;
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("big.txt", content) }, { text: call.complete("Wrote big.txt.") }], { orchestratorEnv: { AIDE_DISK_FULL_RETRY_MS: "300" }, contextBudget: 1_000_000 });
    full = join(stack.dir, "full");
    mkdirSync(full);
    const problem = mountSmallDisk(full);
    if (problem !== "") throw new Error(`cannot mount the small disk: ${problem}`);
    mounted = true;
  }, 120_000);
  afterAll(async () => {
    if (mounted) execFileSync("umount", ["-l", full], { stdio: "ignore" });
    await stack?.stop();
  });

  it("DISK_FULL from write_file: paused with reason disk_full, nothing written; freeing space resumes the run and the write lands", async () => {
    cpSync(sampleProject, full, { recursive: true });
    // Room for the checkpoint before the write (a few small files), not for the 300 KB file.
    writeFileSync(join(full, "room.bin"), Buffer.alloc(256 * 1024));
    fillDisk(full);
    rmSync(join(full, "room.bin"));
    const session = (await stack.command("start", { allow_concurrent: true, task: "Write the large file", workspace: full, auto_approve: { edits: true, commands: [] } })).result.session as string;

    const paused = await stack.waitFor((e) => e.session === session && e.type === "run.state" && e.payload.state === "paused", 60_000);
    expect(paused.payload).toMatchObject({ state: "paused", reason: "disk_full" });
    expect(stack.events.some((e) => e.session === session && e.type === "checkpoint.created")).toBe(true);
    const status = await stack.command("status", { session });
    expect(status.result).toMatchObject({ state: "paused", paused: { reason: "disk_full" } });
    expect(existsSync(join(full, "big.txt"))).toBe(false);
    // A full disk is waited out, not decided, and the model is not told of it.
    expect(stack.events.some((e) => e.session === session && e.type === "approval.requested")).toBe(false);
    expect(stack.events.some((e) => e.session === session && e.type === "tool.completed")).toBe(false);

    rmSync(join(full, "filler.bin"), { force: true });
    rmSync(join(full, "filler-tail.bin"), { force: true });
    const resumed = await stack.waitFor((e) => e.session === session && e.seq > paused.seq && e.type === "run.state", 60_000);
    expect(resumed.payload).toMatchObject({ state: "running" });
    const wrote = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "write_file", 60_000);
    expect(wrote.payload.is_error, JSON.stringify(wrote.payload).slice(0, 400)).toBe(false);
    await stack.terminal(session);
    expect(readFileSync(join(full, "big.txt"), "utf8")).toBe(content);
    expect(stack.events.filter((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "write_file")).toHaveLength(1);
    expect(stack.events.filter((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "write_file")).toHaveLength(1);
  });

  it("every event of this run fits the contract", () => {
    expect(stack.invalidEvents).toEqual([]);
  });
});
