import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { assertContiguous, stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";
/** The session tries the network once (a curl to a server on the host's loopback), approved without network consent. */
const replies = (probeUrl: string) => [
  { text: `I'll read the code first.\n${call.read("math.js")}` },
  { text: `add() subtracts. Fixing it.\n${call.replace("math.js", "  return a - b;", "  return a + b;")}` },
  { text: `Let me check the docs server.\n${call.run(`curl -sS --max-time 5 ${probeUrl}`)}` },
  { text: `Now the test.\n${call.run("node math.test.js")}` },
  { text: call.complete("Fixed add() in math.js; `node math.test.js` passes (2 tests passed).") },
];

function testPasses(workspace: string): boolean {
  try {
    execFileSync(process.execPath, ["math.test.js"], { cwd: workspace, stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/**
 * The scripted session over the real bus and the real model (scripted provider), tools,
 * checkpoints and orchestrator processes: read → edit → approve → run the test → pass → complete,
 * with a checkpoint before the edit and a restore that brings the failing version back.
 * When AIDE_E2E_REPORT is set (the zero-egress test runs this file inside `unshare -n`), the
 * figures the outer test checks are written there.
 */
describe.skipIf(!ready)(`scripted e2e: fix a failing test in the sample project${skipReason}`, () => {
  let stack: Stack;
  let session = "";
  const decisions: string[] = [];
  /** Requests that reached the probe server: a command that got network would show here. */
  const probeHits: string[] = [];
  let probe: Server;
  beforeAll(async () => {
    probe = createServer((request, response) => {
      probeHits.push(request.url ?? "");
      response.end("reached\n");
    });
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    stack = await startStack(replies(`http://127.0.0.1:${(probe.address() as AddressInfo).port}/docs`));
  });
  afterAll(async () => {
    await stack?.stop();
    probe?.close();
  });

  async function approve(event: AgentEvent) {
    const payload = event.payload as { approval: string };
    decisions.push(payload.approval);
    const reply = await stack.command("decision", { session, approval: payload.approval, decision: "approve" });
    expect(reply).toMatchObject({ ok: true, result: { accepted: true } });
  }

  it("runs the session to an accepted completion", async () => {
    expect(testPasses(stack.workspace)).toBe(false);
    const started = await stack.command("start", { task: "Fix the failing test in math.js and run the tests", workspace: stack.workspace, user: "alice" });
    expect(started).toMatchObject({ ok: true, result: { state: "running" } });
    session = started.result.session;
    const editApproval = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    expect(editApproval.payload).toMatchObject({ tool: "replace_in_file", paths: ["math.js"] });
    expect((editApproval.payload as { diff: string }).diff).toContain("+  return a + b;");
    const status = await stack.command("status", { session });
    expect(status.result).toMatchObject({ state: "awaiting_approval", approvals_pending: [{ tool: "replace_in_file" }] });
    expect(readFileSync(join(stack.workspace, "math.js"), "utf8")).toContain("a - b");
    await approve(editApproval);
    const networkApproval = await stack.waitFor((e) => e.session === session && e.type === "approval.requested" && (e.payload as { tool: string }).tool === "run_command");
    expect(networkApproval.payload).toMatchObject({ network: "consent_required" });
    await approve(networkApproval);
    const networkTry = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command");
    // curl exit 7: it ran and could not connect (not 127: missing), in the sandbox without network.
    expect(networkTry.payload).toMatchObject({ is_error: true, metadata: { exit_code: 7, network: false, sandbox: "bwrap" } });
    expect(probeHits).toEqual([]);
    const commandApproval = await stack.waitFor((e) => e.session === session && e.type === "approval.requested" && (e.payload as { tool: string }).tool === "run_command" && e !== networkApproval);
    expect(commandApproval.payload).toMatchObject({ command: "node math.test.js", network: "none" });
    await approve(commandApproval);
    const end = await stack.terminal(session);
    expect(end.type).toBe("run.completed");
    expect(end.payload).toMatchObject({ state: "done", files_changed: ["math.js"], commands_run: 2 });
    expect(testPasses(stack.workspace)).toBe(true);
  });

  it("published valid, contiguous events with the envelope, and no write bodies", async () => {
    expect(stack.invalidEvents).toEqual([]);
    const seqs = assertContiguous(stack.events, session);
    expect(seqs.length).toBeGreaterThan(10);
    const mine = stack.events.filter((e) => e.session === session);
    expect(mine.every((e) => e.user === "alice" && e.strategy === "agent-loop-v3" && e.depth === 0)).toBe(true);
    const commandDone = mine.filter((e) => e.type === "tool.completed" && e.payload.tool === "run_command").at(-1)!;
    expect(commandDone.payload).toMatchObject({ is_error: false, metadata: { exit_code: 0 } });
    const order = mine.map((e) => (e.type === "tool.started" ? `start:${e.payload.tool}` : e.type));
    const beforeEdit = mine.findIndex((e) => e.type === "checkpoint.created" && e.payload.label === "before replace_in_file");
    expect(beforeEdit).toBeGreaterThan(-1);
    expect(beforeEdit).toBeLessThan(order.indexOf("start:replace_in_file"));
    const jsm = await stack.tester.jetstreamManager();
    const info = await jsm.streams.info("AGENT_EVENTS");
    expect(info.state.messages).toBeGreaterThanOrEqual(seqs.length);
  });

  it("restoring the checkpoint before the edit brings the failing version back (files and task)", async () => {
    const before = stack.events.find((e) => e.session === session && e.type === "checkpoint.created" && e.payload.label === "before replace_in_file")!;
    const checkpoint = (before.payload as { checkpoint: string }).checkpoint;
    const preview = await stack.command("restore", { session, checkpoint, mode: "files_and_task", dry_run: true });
    expect(preview).toMatchObject({ ok: true, result: { applied: false, plan: { modified: ["math.js"] } } });
    expect(testPasses(stack.workspace)).toBe(true);
    const restored = await stack.command("restore", { session, checkpoint, mode: "files_and_task", dry_run: false });
    expect(restored).toMatchObject({ ok: true, result: { applied: true } });
    expect(restored.result.truncated_messages).toBeGreaterThan(0);
    expect(readFileSync(join(stack.workspace, "math.js"), "utf8")).toContain("a - b");
    expect(testPasses(stack.workspace)).toBe(false);
    await stack.waitFor((e) => e.session === session && e.type === "checkpoint.restored");
  });

  it("the egress journal stayed empty although the session tried the network, which it did not reach", async () => {
    const egress = await stack.egressCount();
    expect(egress).toBe(0);
    expect(probeHits).toEqual([]);
    const tried = stack.events.find((e) => e.session === session && e.type === "approval.decided" && (e.payload as { approval: string }).approval === decisions[1]);
    expect(tried?.payload).toMatchObject({ decision: "approve", network: false });
    if (process.env.AIDE_E2E_REPORT) {
      const end = stack.events.find((e) => e.session === session && e.type === "run.completed");
      writeFileSync(
        process.env.AIDE_E2E_REPORT,
        JSON.stringify({ state: (end?.payload as { state?: string })?.state, egress, network_tries: 1, probe_hits: probeHits.length, events: stack.events.length }),
      );
    }
  });
});
