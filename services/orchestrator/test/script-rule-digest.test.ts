import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const runTests = () => [{ text: call.run("npm test") }, { text: call.complete("Tried the tests.") }];
const hostile = "node -e \"require('fs').writeFileSync('pwned-script', '')\"";

/**
 * Issue 26 over the real services: an allow rule for a script runner binds to the digest of the
 * script text the person saw. `npm test` alone asks, showing the script and its digest; the rule
 * `npm test sha256:<that digest>` runs it without asking; once package.json's test script changes,
 * the same rule asks again and the approval shows the new text.
 */
describe.skipIf(skipReason !== "")(`allow rules for script runners bind to the script's digest${skipReason}`, () => {
  let stack: Stack;
  let digestOfA = "";
  beforeAll(async () => {
    stack = await startStack([{ text: call.complete("unused") }], {
      models: {
        unseen: runTests(),
        bound: runTests(),
        changed: runTests(),
        twice: [{ text: call.run("npm test") }, { text: call.run("npm test -- --again") }, { text: call.complete("Ran the tests twice.") }],
      },
    });
  }, 120_000);
  afterAll(async () => stack?.stop());

  async function start(model: string, commands: string[]) {
    const started = await stack.command("start", { allow_concurrent: true, task: "Run the tests", workspace: stack.workspace, model, auto_approve: { edits: false, commands } });
    return started.result.session as string;
  }

  it("a rule naming the script without a digest asks, showing the script text and its digest", async () => {
    const session = await start("unseen", ["npm test"]);
    const asked = await stack.waitFor((e) => e.session === session && e.type === "approval.requested", 60_000);
    expect(asked.payload).toMatchObject({
      command: "npm test",
      scripts: [{ source: "package.json", name: "test", text: "node math.test.js" }],
      scripts_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    digestOfA = (asked.payload as { scripts_digest: string }).scripts_digest;
    await stack.command("decision", { session, approval: (asked.payload as { approval: string }).approval, decision: "reject" });
    await stack.terminal(session, undefined, 60_000);
  });

  it("the rule with the digest of the text seen runs it without asking", async () => {
    expect(digestOfA).not.toBe("");
    const session = await start("bound", [`npm test sha256:${digestOfA}`]);
    await stack.terminal(session, undefined, 60_000);
    expect(stack.events.filter((e) => e.session === session && e.type === "approval.requested")).toEqual([]);
    expect(stack.events.find((e) => e.session === session && e.type === "approval.decided")?.payload.decision).toBe("auto");
    const ran = stack.events.find((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(ran?.payload).toMatchObject({ metadata: { exit_code: 1 } });
  });

  it("approving with allow_script records the rule with the digest shown: the same script runs again without asking", async () => {
    const session = await start("twice", []);
    const asked = await stack.waitFor((e) => e.session === session && e.type === "approval.requested", 60_000);
    expect((asked.payload as { scripts_digest: string }).scripts_digest).toBe(digestOfA);
    await stack.command("decision", { session, approval: (asked.payload as { approval: string }).approval, decision: "approve", allow_script: true });
    await stack.terminal(session, undefined, 60_000);
    expect(stack.events.filter((e) => e.session === session && e.type === "approval.decided").map((e) => e.payload.decision)).toEqual(["approve", "auto"]);
    expect(stack.events.filter((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command")).toHaveLength(2);
  });

  it("after package.json's test script changes, the same rule asks and the approval shows the new text", async () => {
    const packageFile = join(stack.workspace, "package.json");
    const manifest = JSON.parse(readFileSync(packageFile, "utf8")) as { scripts: Record<string, string> };
    manifest.scripts.test = hostile;
    writeFileSync(packageFile, JSON.stringify(manifest, null, 2));
    // A plain `npm test` beside it does not cover the changed script either.
    const session = await start("changed", ["npm test", `npm test sha256:${digestOfA}`]);
    const asked = await stack.waitFor((e) => e.session === session && e.type === "approval.requested", 60_000);
    expect(asked.payload).toMatchObject({ command: "npm test", scripts: [{ source: "package.json", name: "test", text: hostile }] });
    expect((asked.payload as { scripts_digest: string }).scripts_digest).not.toBe(digestOfA);
    await stack.command("decision", { session, approval: (asked.payload as { approval: string }).approval, decision: "reject" });
    await stack.terminal(session, undefined, 60_000);
    expect(existsSync(join(stack.workspace, "pwned-script"))).toBe(false);
    expect(stack.invalidEvents).toEqual([]);
  });
});
