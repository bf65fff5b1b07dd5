import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const install = "npm install --no-audit --no-fund";
const installs = () => [{ text: call.run(install) }, { text: call.complete("Ran the install.") }];
/** No dependencies, so the install needs no network; its postinstall leaves a marker when it runs. */
const manifest = { name: "demo", version: "1.0.0", private: true, scripts: { postinstall: "node -e \"require('fs').writeFileSync('postinstall-ran', '')\"" } };

/**
 * A package install's approval offers the same install with `--ignore-scripts`, and its allow
 * rule; a person picks it with the decision's `alternative`. Over the real services and npm.
 */
describe.skipIf(skipReason !== "")(`npm install approvals offer --ignore-scripts${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.complete("unused") }], { models: { plain: installs(), without: installs(), wrong: installs() } });
    writeFileSync(join(stack.workspace, "package.json"), JSON.stringify(manifest, null, 2));
  }, 120_000);
  afterAll(async () => stack?.stop());

  async function asked(model: string) {
    rmSync(join(stack.workspace, "postinstall-ran"), { force: true });
    const started = await stack.command("start", { allow_concurrent: true, task: "Install the dependencies", workspace: stack.workspace, model });
    const session = started.result.session as string;
    const approval = await stack.waitFor((e) => e.session === session && e.type === "approval.requested", 60_000);
    return {
      session,
      payload: approval.payload as { approval: string; command: string; scripts?: Array<{ name: string }>; alternative?: { id: string; command: string; rule: string; note: string } },
    };
  }

  it("the approval shows the postinstall script and offers `… --ignore-scripts` with its rule", async () => {
    const { session, payload } = await asked("plain");
    expect(payload.scripts?.map((script) => script.name)).toEqual(["postinstall"]);
    expect(payload.alternative).toMatchObject({ id: "ignore_scripts", command: `${install} --ignore-scripts`, rule: `${install} --ignore-scripts` });
    // Approved as proposed, the script runs.
    await stack.command("decision", { session, approval: payload.approval, decision: "approve" });
    await stack.terminal(session, undefined, 120_000);
    const ran = stack.events.find((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(ran?.payload, JSON.stringify(ran?.payload)).toMatchObject({ args: { command: install }, metadata: { exit_code: 0 } });
    expect(existsSync(join(stack.workspace, "postinstall-ran"))).toBe(true);
  });

  it("approved with alternative: ignore_scripts (and allow_script): the --ignore-scripts form runs, no script runs, its rule is added", async () => {
    const { session, payload } = await asked("without");
    const reply = await stack.command("decision", { session, approval: payload.approval, decision: "approve", alternative: "ignore_scripts", allow_script: true });
    expect(reply).toMatchObject({ ok: true });
    await stack.terminal(session, undefined, 120_000);
    const events = stack.events.filter((e) => e.session === session);
    expect(events.find((e) => e.type === "approval.decided")?.payload).toMatchObject({ decision: "approve", alternative: { id: "ignore_scripts", command: `${install} --ignore-scripts` } });
    const started = events.find((e) => e.type === "tool.started" && e.payload.tool === "run_command");
    expect(started?.payload).toMatchObject({ args: { command: `${install} --ignore-scripts` } });
    const ran = events.find((e) => e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(ran?.payload, JSON.stringify(ran?.payload)).toMatchObject({ args: { command: `${install} --ignore-scripts` }, metadata: { exit_code: 0 } });
    expect(existsSync(join(stack.workspace, "postinstall-ran"))).toBe(false);
    // The model is told what ran.
    expect(JSON.stringify(stack.modelRequests("without")[1].messages)).toContain("which ran instead: no lifecycle script ran");
    const status = await stack.command("status", { session });
    expect(status.result.auto_approve.commands).toEqual([`${install} --ignore-scripts`]);
    expect(stack.invalidEvents).toEqual([]);
  });

  it("an alternative the approval does not offer, or with reject, is refused (APPROVAL_ALTERNATIVE_INVALID) and nothing is decided", async () => {
    const { session, payload } = await asked("wrong");
    const rejecting = await stack.command("decision", { session, approval: payload.approval, decision: "reject", alternative: "ignore_scripts" });
    expect(rejecting).toMatchObject({ ok: false, error: { code: "APPROVAL_ALTERNATIVE_INVALID" } });
    const other = await stack.command("decision", { session, approval: payload.approval, decision: "approve", alternative: "no_such" });
    expect(other).toMatchObject({ ok: false });
    await stack.command("decision", { session, approval: payload.approval, decision: "reject" });
    await stack.terminal(session, undefined, 60_000);
  });
});
