import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const home = "/home/aide-refusal-user";

/** The orchestrator process is the authority on where a session may work, whatever the client checked before. */
describe.skipIf(skipReason !== "")(`workspace refusals at agent.cmd.start${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: "<attempt_completion><result>x</result></attempt_completion>" }], { orchestratorEnv: { HOME: home } });
  });
  afterAll(async () => stack?.stop());

  it.each(["/", home, `${home}/`])("refuses %s, never overridable", async (workspace) => {
    const reply = await stack.command("start", { task: "x", workspace });
    expect(reply).toMatchObject({ ok: false, error: { code: "WORKSPACE_TOO_BROAD" } });
    expect(reply.error.message).toContain("never accepted");
  });

  it.each(["Documents", "Desktop", "Downloads"])("refuses ~/%s itself, naming the override", async (folder) => {
    const reply = await stack.command("start", { task: "x", workspace: `${home}/${folder}` });
    expect(reply).toMatchObject({ ok: false, error: { code: "WORKSPACE_TOO_BROAD", message: expect.stringContaining(`~/${folder}`) } });
    expect(reply.error.message).toContain("aide up --allow-home-workspace");
  });

  it("refuses a folder outside the roots naming the roots and the flag that adds one", async () => {
    const reply = await stack.command("start", { task: "x", workspace: `${home}/Documents/project` });
    expect(reply).toMatchObject({ ok: false, error: { code: "WORKSPACE_NOT_ALLOWED" } });
    const root = stack.workspace.slice(0, stack.workspace.lastIndexOf("/"));
    expect(reply.error.message).toContain(root);
    expect(reply.error.message).toContain("aide up --workspace DIR");
  });
});
