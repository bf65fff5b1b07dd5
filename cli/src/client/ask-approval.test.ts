import { describe, expect, it } from "vitest";
import type { DecisionRequest } from "@aide/contracts";
import { askApproval } from "./ask-approval.js";
import type { GatewayClient } from "./gateway-client.js";
import type { LinePrompt } from "./line-prompt.js";
import { createStyle } from "./terminal-style.js";

const install = {
  approval: "ap1",
  tool: "run_command",
  command: "npm ci",
  network: "consent_required" as const,
  scripts: [{ source: "package.json", name: "postinstall", text: "node setup.js" }],
  scripts_digest: "a".repeat(64),
  alternative: { id: "ignore_scripts" as const, command: "npm ci --ignore-scripts", rule: "npm ci --ignore-scripts", note: "installs the packages without running any lifecycle script" },
};

/** The person's answers, one per question, and the decision the client sends. */
async function answer(lines: string[]): Promise<{ sent: DecisionRequest[]; shown: string; asked: string[] }> {
  const sent: DecisionRequest[] = [];
  const asked: string[] = [];
  let shown = "";
  const client = { decide: async (request: DecisionRequest) => (sent.push(request), { accepted: true, state: "running" }) } as unknown as GatewayClient;
  const prompt: LinePrompt = { ask: async (question) => (asked.push(question), lines.shift() ?? ""), close: () => undefined };
  await askApproval({ client, session: "s1", style: createStyle(false), prompt, write: (text) => (shown += `${text}\n`) }, install);
  return { sent, shown, asked };
}

describe("the terminal approval of a package install offers --ignore-scripts", () => {
  it("shows the alternative beside the command", async () => {
    const { shown } = await answer(["r", ""]);
    expect(shown).toContain("or without any lifecycle script: npm ci --ignore-scripts");
  });

  it("approve, then yes to the alternative and to its rule: alternative and allow_script are sent", async () => {
    const { sent, asked } = await answer(["a", "y", "y"]);
    expect(asked[1]).toContain("Run it as `npm ci --ignore-scripts` instead");
    expect(asked[2]).toContain("Also allow `npm ci --ignore-scripts`");
    expect(sent).toEqual([{ session: "s1", approval: "ap1", decision: "approve", consent_network: false, alternative: "ignore_scripts", allow_script: true }]);
  });

  it("approve, no to the alternative: the command as proposed, with the digest rule question", async () => {
    const { sent } = await answer(["n", "n", "y"]);
    expect(sent).toEqual([{ session: "s1", approval: "ap1", decision: "approve", consent_network: true, allow_script: true }]);
  });
});
