import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { assertContiguous, stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

async function waitForFile(path: string, timeoutMs = 30_000): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 50) {
    if (waited > timeoutMs) throw new Error(`${path} did not appear`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * SIGKILL the orchestrator mid-run and start a new one (same bus, same JetStream): the session
 * resumes; a pending approval is offered again under the same id and answered once; a command
 * in flight is reported to the model as interrupted and never re-executed.
 */
describe.skipIf(!ready)(`durable sessions across SIGKILL + restart of the orchestrator${skipReason}`, () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it("a pending approval survives: offered again under the same id, answered once, the run completes", async () => {
    stack = await startStack([
      { text: call.replace("math.js", "  return a - b;", "  return a + b;") },
      { text: call.run("node math.test.js") },
      { text: call.complete("Fixed add(); the test passes.") },
    ]);
    const s = stack;
    const started = await s.command("start", { task: "Fix the failing test in math.js and run the tests", workspace: s.workspace, auto_approve: { edits: false, commands: ["node"] } });
    const session = started.result.session as string;
    const first = await s.waitFor((e) => e.session === session && e.type === "approval.requested");
    const approval = (first.payload as { approval: string }).approval;
    const statusBefore = await s.command("status", { session });
    expect(statusBefore.result.approvals_pending).toEqual([expect.objectContaining({ id: approval })]);

    await s.services.orchestrator.stop("SIGKILL");
    await s.startOrchestrator();
    const again = await s.waitFor((e) => e.session === session && e.type === "approval.requested" && e.seq > first.seq);
    expect((again.payload as { approval: string }).approval).toBe(approval);
    expect(again.payload).toMatchObject({ tool: "replace_in_file", args_digest: (first.payload as { args_digest: string }).args_digest });

    const decided = await s.command("decision", { session, approval, decision: "approve" });
    expect(decided).toMatchObject({ ok: true, result: { accepted: true } });
    const twice = await s.command("decision", { session, approval, decision: "approve" });
    expect(twice).toMatchObject({ ok: false, error: { code: "APPROVAL_ALREADY_DECIDED" } });
    const end = await s.terminal(session);
    expect(end.payload).toMatchObject({ state: "done" });
    expect(readFileSync(join(s.workspace, "math.js"), "utf8")).toContain("a + b");
    expect(s.events.filter((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "replace_in_file")).toHaveLength(1);
    assertContiguous(s.events, session);
    expect(s.invalidEvents).toEqual([]);
  });

  it("a command in flight is reported as interrupted and never re-executed", async () => {
    stack = await startStack([
      { text: call.run("node slow.js") },
      { text: `The run was interrupted; checking what happened.\n${call.run("node count.js")}` },
      { text: call.complete("slow.js was interrupted by a restart; count.js shows it ran once.") },
    ]);
    const s = stack;
    writeFileSync(join(s.workspace, "slow.js"), "import { appendFileSync } from 'node:fs';\nappendFileSync('runs.log', 'run\\n');\nsetTimeout(() => {}, 8000);\n");
    writeFileSync(
      join(s.workspace, "count.js"),
      "import { existsSync, readFileSync } from 'node:fs';\nconsole.log('runs:', existsSync('runs.log') ? readFileSync('runs.log', 'utf8').trim().split('\\n').length : 0);\n",
    );
    const started = await s.command("start", { task: "Run slow.js", workspace: s.workspace, auto_approve: { edits: false, commands: ["node"] } });
    const session = started.result.session as string;
    const inFlight = await s.waitFor((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "run_command");
    // Kill only once slow.js is really running (it writes runs.log first, then sleeps 8 s).
    await waitForFile(join(s.workspace, "runs.log"));
    await s.services.orchestrator.stop("SIGKILL");
    await s.startOrchestrator();
    const interrupted = await s.waitFor(
      (e) => e.session === session && e.type === "tool.completed" && (e.payload as { call_id: string }).call_id === (inFlight.payload as { call_id: string }).call_id,
    );
    expect(interrupted.payload).toMatchObject({ is_error: true, summary: expect.stringContaining("INTERRUPTED") });
    const end = await s.terminal(session);
    expect(end.payload).toMatchObject({ state: "done" });
    expect(readFileSync(join(s.workspace, "runs.log"), "utf8")).toBe("run\n");
    const starts = s.events.filter((e) => e.session === session && e.type === "tool.started" && (e.payload as { call_id: string }).call_id === (inFlight.payload as { call_id: string }).call_id);
    expect(starts).toHaveLength(1);
    const requests = readFileSync(join(s.dir, "model-requests.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(requests[1].messages.at(-1).content).toContain("INTERRUPTED");
    assertContiguous(s.events, session);
  });
});
