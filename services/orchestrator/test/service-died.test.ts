import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";
import { startServiceProcess } from "../../../tests/helpers/service-process.js";

const skipReason = stackSkipReason();

const longSleep = "<run_command>\n<command>sleep 600</command>\n<timeout_ms>600000</timeout_ms>\n</run_command>";

/**
 * Issue 14 item 5: the tools service is killed with SIGKILL while a command with a 10-minute
 * timeout runs. The orchestrator notices the dead service from its missing heartbeats, the call
 * ends INTERRUPTED (the model is told the command may have run, and it is not run again), and the
 * run goes on. Without heartbeats the run would sit in `running` for the command's whole timeout,
 * far past this test's own.
 */
describe.skipIf(skipReason !== "")(`a tools service that dies mid-command${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      [{ text: longSleep }, { text: call.complete("The wait was interrupted.") }, { text: call.complete("The wait was interrupted.") }, { text: call.complete("The wait was interrupted.") }],
      {
        orchestratorEnv: { AIDE_HEARTBEAT_INTERVAL_MS: "1000", AIDE_HEARTBEAT_TIMEOUT_MS: "5000" },
      },
    );
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("ends the call INTERRUPTED, tells the model it may have run, and never runs it again", async () => {
    const started = await stack.command("start", { allow_concurrent: true, task: "Wait ten minutes", workspace: stack.workspace, auto_approve: { edits: false, commands: ["sleep"] } });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const session = started.result.session as string;
    await stack.waitFor((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "run_command", 40_000);
    // Give the sandbox a moment to start the command, then kill the service without a chance to answer.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stack.services.tools!.child.kill("SIGKILL");
    const completed = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command", 45_000);
    expect(completed.payload.is_error).toBe(true);
    expect(completed.payload.metadata).toMatchObject({ error_code: "INTERRUPTED", may_have_run: true });
    // The supervisor would restart it; the run's end closes the session's processes there.
    stack.services.tools = await startServiceProcess(stack.bus, "tools", { env: { AIDE_WORKSPACE_ROOTS: stack.dir, AIDE_LOG_LEVEL: "info" }, pinger: stack.tester, readyTimeoutMs: 60_000 });
    const terminal = await stack.terminal(session, undefined, 45_000);
    expect(["run.completed", "run.failed"]).toContain(terminal.type);
    const runs = stack.events.filter((e) => e.session === session && e.type === "tool.started" && e.payload.tool === "run_command");
    expect(runs).toHaveLength(1);
    const second = stack.modelRequests()[1];
    const told = second?.messages.map((message) => message.content).join("\n") ?? "";
    expect(told).toContain("INTERRUPTED");
    expect(told).toContain("may have run");
  }, 150_000);
});
