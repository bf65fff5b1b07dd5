import { describe, expect, it } from "vitest";
import { abortRun } from "../src/commands/abort-run.js";
import { denyUnmatchedFeedback } from "../src/turn/gate-approval.js";
import { createLoopHarness } from "./support/loop-harness.js";
import { call } from "./support/scripted-calls.js";

const remember = (text: string) => `<remember>\n<text>${text}</text>\n</remember>`;
const payloadOf = (event: { payload: unknown }) => event.payload as Record<string, any>;

/**
 * Issue 13 item 4 (headless runs), the orchestrator's half: `auto_approve.all` covers plain writes
 * and commands only; `deny_unmatched` refuses whatever no rule covers at once, memory changes and
 * protected paths included, so a run with nobody at a prompt goes on instead of waiting;
 * `approval_timeout_seconds` sets how long an approval of that run waits.
 */
describe("headless approval policy (in-process loop)", () => {
  it("all + deny_unmatched: the write and the command run by rule; the protected write and the remember are refused at once; the run goes on", async () => {
    const h = createLoopHarness([
      call.write("src/a.ts", "export const a = 1;"),
      call.run("npm test"),
      call.write(".github/workflows/ci.yml", "on: push"),
      remember("always skip the tests"),
      call.complete("Wrote src/a.ts and ran npm test."),
      call.complete("Wrote src/a.ts and ran npm test."),
      call.complete("Wrote src/a.ts and ran npm test."),
    ]);
    h.tools.commands["npm test"] = { exit: 0, output: "1 passing" };
    const session = await h.start("Add the constant a to src/a.ts, run the tests and remember my preferences", { auto_approve: { edits: false, commands: [], all: true, deny_unmatched: true } });
    const end = await h.finished(session);
    expect(["run.completed"]).toContain(end.type);

    expect(h.tools.execs.map((exec) => (exec.name === "run_command" ? `run_command ${String(exec.arguments["command"])}` : `${exec.name} ${String(exec.arguments["path"])}`))).toEqual(
      expect.arrayContaining(["write_file src/a.ts", "run_command npm test"]),
    );
    expect(h.tools.execs.some((exec) => exec.arguments["path"] === ".github/workflows/ci.yml")).toBe(false);
    expect(await h.memory.recall("tester")).toEqual([]);

    const requested = h.events.filter((event) => event.type === "approval.requested").map(payloadOf);
    expect(requested.map((payload) => payload.tool)).toEqual(["write_file", "remember"]);
    const decided = h.events.filter((event) => event.type === "approval.decided").map(payloadOf);
    expect(decided.map((payload) => payload.decision)).toEqual(["auto", "auto", "reject", "reject"]);
    expect(decided.slice(2).map((payload) => payload.feedback)).toEqual([denyUnmatchedFeedback, denyUnmatchedFeedback]);
    const record = h.orchestrator.sessions.get(session)!.record;
    expect(record.approvals).toEqual([]);
    expect(record.settled_approvals.map((settled) => settled.settled_by)).toEqual(["policy", "policy"]);
    // The model was told, and asked again after each refusal.
    expect(h.model.requests.length).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(h.model.requests[3].messages.at(-1))).toContain("refused by --deny-rest");
  });

  it("approval_timeout_seconds sets the run's approval expiry; without deny_unmatched the approval waits", async () => {
    const h = createLoopHarness([call.run("make deploy"), call.complete("done")]);
    const session = await h.start("Deploy", { auto_approve: { edits: true, commands: ["make build"] }, approval_timeout_seconds: 42 });
    const requested = await h.waitFor("approval.requested");
    const wait = Date.parse(payloadOf(requested).expires_at) - Date.parse(requested.ts);
    expect(wait).toBeGreaterThan(30_000);
    expect(wait).toBeLessThanOrEqual(42_000);
    expect(h.orchestrator.sessions.get(session)!.record.approvals).toHaveLength(1);
    await abortRun(h.orchestrator, session, "test over");
    expect((await h.finished(session)).type).toBe("run.cancelled");
  });
});
