import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";
import type { ServiceProcess } from "../../../tests/helpers/service-process.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/** The id an orchestrator process logs in its "orchestrator ready" line (just after it answers pings). */
async function instanceOf(process: ServiceProcess): Promise<string> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const line = process
      .logs()
      .split("\n")
      .find((entry) => entry.includes('"orchestrator ready"'));
    if (line) return JSON.parse(line).instance as string;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ready line in:\n${process.logs()}`);
}

/**
 * Issue 14 item 4: orchestrators started without AIDE_ORCHESTRATOR_ID on one host each claim
 * their own id on the bus, so a second instance never resumes the first one's live run.
 */
describe.skipIf(!ready)(`default orchestrator ids${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    // A lease long enough that a killed instance's id is still held while the next one starts.
    stack = await startStack([{ text: call.write("a.txt", "x") }], { orchestratorEnv: { AIDE_LEASE_MS: "20000", AIDE_ORCHESTRATOR_ID: "" } });
  });
  afterAll(async () => stack?.stop());

  async function ownerOf(session: string): Promise<string> {
    const kv = await stack.tester.jetstream().views.kv("aide_sessions");
    const entry = await kv.get(session);
    return JSON.parse(new TextDecoder().decode(entry!.value)).owner;
  }

  it("are distinct per live instance, not reused while a killed holder's lease runs, and freed by a graceful stop", async () => {
    const first = stack.services.orchestrator;
    const firstId = await instanceOf(first);
    expect(firstId).toMatch(/^orchestrator-.+-\d+$/);
    const started = await stack.command("start", { task: "Create a.txt", workspace: stack.workspace });
    const session = started.result.session as string;
    await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    expect(await ownerOf(session)).toBe(firstId);

    const second = await stack.startOrchestrator();
    const secondId = await instanceOf(second);
    expect(secondId).not.toBe(firstId);
    // The second instance's start-up resume left the first one's live run alone.
    expect(second.logs()).not.toContain("resuming a session");
    expect(await ownerOf(session)).toBe(firstId);

    await first.stop("SIGKILL");
    const third = await stack.startOrchestrator();
    expect([firstId, secondId]).not.toContain(await instanceOf(third));

    await second.stop("SIGTERM");
    const fourth = await stack.startOrchestrator();
    expect(await instanceOf(fourth)).toBe(secondId);
  });
});
