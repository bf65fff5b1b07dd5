import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartRequestSchema } from "@aide/contracts";
import { createLogger } from "@aide/runtime";
import { configFromEnv } from "../src/config/orchestrator-config.js";
import { createBusOrchestrator } from "../src/create-orchestrator.js";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/** Issue 13 item 6: two runs on one workspace. The real orchestrator process over a real bus. */
describe.skipIf(!ready)(`a second start on a workspace with a running session${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.write("a.txt", "x") }], {
      orchestratorEnv: { AIDE_UNSANDBOXED_SERVICES: "1", AIDE_DEFAULT_MODEL: "s1" },
      models: { s2: [{ text: call.write("b.txt", "y") }], s3: [{ text: "Nothing to do." }] },
    });
  });
  afterAll(async () => stack?.stop());

  it("is refused with WORKSPACE_BUSY naming the running session; allow_concurrent starts it; after the first ends a start is accepted", async () => {
    const first = await stack.command("start", { task: "Create a.txt", workspace: stack.workspace });
    expect(first).toMatchObject({ ok: true });
    const session = first.result.session as string;
    await stack.waitFor((e) => e.session === session && e.type === "approval.requested");

    const refused = await stack.command("start", { task: "Create b.txt", workspace: stack.workspace, model: "s2" });
    expect(refused).toMatchObject({ ok: false, error: { code: "WORKSPACE_BUSY", details: { session } } });
    expect(refused.error.message).toContain(session);
    expect(refused.error.message).toContain(stack.workspace);

    const concurrent = await stack.command("start", { task: "Create b.txt", workspace: stack.workspace, model: "s2", allow_concurrent: true });
    expect(concurrent).toMatchObject({ ok: true });
    const second = concurrent.result.session as string;
    await stack.waitFor((e) => e.session === second && e.type === "approval.requested");

    for (const id of [session, second]) {
      expect(await stack.command("abort", { session: id, reason: "done" })).toMatchObject({ ok: true });
      await stack.terminal(id);
    }
    expect(await stack.command("start", { task: "Say hello", workspace: stack.workspace, model: "s3" })).toMatchObject({ ok: true });
  });

  it("a second instance's copy of a session run elsewhere keeps the workspace busy only while that run is active", async () => {
    // Its own workspace: the run the first case started last may still be going in the stack's.
    const workspace = join(stack.dir, "workspace-copy");
    cpSync(stack.workspace, workspace, { recursive: true });
    // A second orchestrator instance in this process, on the same bus and store (no command endpoints: the test calls it).
    const connection = await stack.bus.connectAs("orchestrator");
    const env = { AIDE_WORKSPACE_ROOTS: stack.dir, AIDE_ORCHESTRATOR_ID: "orchestrator-copy", AIDE_UNSANDBOXED_SERVICES: "1", AIDE_DEFAULT_MODEL: "s1", HOME: process.env.HOME ?? "/root" };
    const other = await createBusOrchestrator(connection, configFromEnv(env), createLogger("orchestrator-copy", { level: "silent" }));
    const request = (task: string, model: string) => StartRequestSchema.parse({ task, workspace, model });
    try {
      const first = await stack.command("start", { task: "Create a.txt", workspace });
      expect(first).toMatchObject({ ok: true });
      const session = first.result.session as string;
      await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
      // The second instance reads the session, as it does to forward a person's command to its owner.
      const copy = await other.load(session);
      expect(other.ownerElsewhere(copy)).toBe("orchestrator-stack");
      await expect(other.start(request("Create b.txt", "s2"))).rejects.toMatchObject({ code: "WORKSPACE_BUSY", details: { session } });

      expect(await stack.command("abort", { session, reason: "done" })).toMatchObject({ ok: true });
      await stack.terminal(session);
      // Its copy still says the run waits for an approval; the run has ended where it ran.
      expect(copy.record.state).toBe("awaiting_approval");
      const started = await other.start(request("Say hello", "s3"));
      await stack.terminal(started.id);
    } finally {
      await other.stop();
      await connection.close();
    }
  });
});
