import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderForScreen, type AgentEvent } from "@aide/contracts";
import { hostileStrings, rawControlPattern } from "../../../contracts/test/hostile-strings.js";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const prose = hostileStrings.map((entry) => entry.text).join("\n");
// Raw ESC and RLO in the proposed command text itself; the output carries OSC 52 and a lone CR.
const command = "printf 'ok\\033]52;c;Y3VybA==\\007 half\\rdone\\n'; echo \"x\u202Ey\u001b[2J\"";

/** Everything of an event but `raw_base64` (base64: printable by construction) is for screens. */
function screenPart(event: AgentEvent): unknown {
  if (event.type !== "approval.requested") return event.payload;
  const { raw_base64: _raw, ...rest } = event.payload;
  return rest;
}

describe.skipIf(skipReason !== "")(`events reach screens rendered (real services)${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: `${prose}\n${call.run(command)}` }, { text: call.complete(`Printed it. ${hostileStrings[0].text}`) }]);
  });
  afterAll(async () => stack?.stop());

  it("prose, the approval's command, the command output and the result carry no raw control character; the approval's raw command travels only as base64 and renders to the command shown", async () => {
    const started = await stack.command("start", { task: "Run the printf command and report what it printed", workspace: stack.workspace });
    const session = started.result.session as string;
    const requested = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    if (requested.type !== "approval.requested") throw new Error("unreachable");
    const rawCommand = Buffer.from(requested.payload.raw_base64?.command ?? "", "base64").toString("utf8");
    expect(rawCommand).toBe(command);
    expect(requested.payload.command).toBe(renderForScreen(rawCommand));
    expect(requested.payload.command).toContain("x⟨U+202E⟩y⟨ESC⟩[2J");
    expect(requested.payload.escapes).toEqual({ count: 2, kinds: { bidi: 1, escape: 1 } });
    await stack.command("decision", { session, approval: requested.payload.approval, decision: "approve" });
    await stack.terminal(session);
    const events = stack.events.filter((e) => e.session === session);
    expect(stack.invalidEvents).toEqual([]);
    for (const event of events) expect(JSON.stringify(screenPart(event)), `${event.seq} ${event.type}`).not.toMatch(rawControlPattern);
    const deltas = events
      .filter((e) => e.type === "model.delta")
      .map((e) => (e.payload as { text: string }).text)
      .join("");
    expect(deltas).toContain("see ⟨ESC⟩]8;;https://evil.example/⟨BEL⟩docs");
    expect(deltas).toContain("hello⟨U+E0049⟩");
    const completed = events.find((e) => e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(completed?.payload.summary).toContain("⟨ESC⟩]52;c;Y3VybA==⟨BEL⟩");
    // What ran is the raw command the person approved: its echo printed the RLO and the ESC themselves.
    expect(completed?.payload.output_preview).toContain("x⟨U+202E⟩y⟨ESC⟩[2J");
    const terminal = events.find((e) => e.type === "run.completed" || e.type === "completion.unverified" || e.type === "completion.rejected");
    expect(JSON.stringify(terminal?.payload ?? {})).not.toMatch(rawControlPattern);
  }, 120_000);
});
