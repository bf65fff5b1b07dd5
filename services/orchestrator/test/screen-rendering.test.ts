import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderForScreen, type AgentEvent } from "@aide/contracts";
import { hostileStrings, rawControlPattern } from "../../../contracts/test/hostile-strings.js";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const prose = hostileStrings.map((entry) => entry.text).join("\n");
// Raw ESC and RLO in the proposed command text itself; the output carries OSC 52 and a lone CR.
const command = "printf 'ok\\033]52;c;Y3VybA==\\007 half\\rdone\\n'; echo \"x\u202Ey\u001b[2J\"";

/** The fields a machine needs raw (`approval.requested`); everything else is for screens. */
function screenPart(event: AgentEvent): unknown {
  if (event.type !== "approval.requested") return event.payload;
  const { command: _command, diff: _diff, args: _args, paths: _paths, ...rest } = event.payload;
  return rest;
}

describe.skipIf(skipReason !== "")(`events reach screens rendered (real services)${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([
      { text: `${prose}\n${call.run(command)}` },
      { text: call.complete(`Printed it. ${hostileStrings[0].text}`) },
    ]);
  });
  afterAll(async () => stack?.stop());

  it("prose, the approval's command, the command output and the result carry no raw control character; the approval keeps the raw command beside its rendering", async () => {
    const started = await stack.command("start", { task: "Run the printf command and report what it printed", workspace: stack.workspace });
    const session = started.result.session as string;
    const requested = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    if (requested.type !== "approval.requested") throw new Error("unreachable");
    expect(requested.payload.command).toContain("\u202E");
    expect(requested.payload.command_rendered).toBe(renderForScreen(requested.payload.command!));
    expect(requested.payload.command_rendered).toContain("x⟨U+202E⟩y⟨ESC⟩[2J");
    expect(requested.payload.escapes).toEqual({ count: 2, kinds: { bidi: 1, escape: 1 } });
    await stack.command("decision", { session, approval: requested.payload.approval, decision: "approve" });
    await stack.terminal(session);
    const events = stack.events.filter((e) => e.session === session);
    expect(stack.invalidEvents).toEqual([]);
    for (const event of events) expect(JSON.stringify(screenPart(event)), `${event.seq} ${event.type}`).not.toMatch(rawControlPattern);
    const deltas = events.filter((e) => e.type === "model.delta").map((e) => (e.payload as { text: string }).text).join("");
    expect(deltas).toContain("see ⟨ESC⟩]8;;https://evil.example/⟨BEL⟩docs");
    expect(deltas).toContain("hello⟨U+E0049⟩");
    const completed = events.find((e) => e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(completed?.payload.summary).toContain("⟨ESC⟩]52;c;Y3VybA==⟨BEL⟩");
    const terminal = events.find((e) => e.type === "run.completed" || e.type === "completion.unverified" || e.type === "completion.rejected");
    expect(JSON.stringify(terminal?.payload ?? {})).not.toMatch(rawControlPattern);
  }, 120_000);
});
