import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

const slugLine = '  const slug = text.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");';
const slugSource = `// Builds URL slugs; \`lowercase: false\` should keep the letters' case.
export function buildPatternSlug(text, { lowercase = true } = {}) {
${slugLine}
  return lowercase ? slug.toLowerCase() : slug;
}
`;
const slugTest = `import assert from "node:assert/strict";
import { buildPatternSlug } from "./slug.js";

const cases = Array.from({ length: 20 }, (_, index) => [\`Item \${index}\`, \`Item-\${index}\`]);
for (const [input, expected] of cases) assert.equal(buildPatternSlug(input, { lowercase: false }), expected);
console.log("20 tests passed");
`;

const falseClaim = "Fixed buildPatternSlug in slug.js: uppercase letters are kept when lowercase is false. node slug.test.js: 20 tests passed.";
/** Issue 12's false done: a bug report, every edit and command rejected, a completion claiming a fix and 20 passing tests. */
const replies = [
  { text: `Let me read the slug code.\n${call.read("slug.js")}` },
  { text: `The character class drops uppercase letters. Fixing it.\n${call.replace("slug.js", slugLine, slugLine.replace("a-z0-9", "a-zA-Z0-9"))}` },
  { text: `Then the tests.\n${call.run("node slug.test.js")}` },
  { text: call.complete(falseClaim) },
  { text: call.complete(falseClaim) },
  { text: call.complete(falseClaim) },
];

describe.skipIf(!ready)(`a run whose every change was rejected never ends done, over the real services${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    // A window large enough that the three completion attempts fit without a compaction request.
    stack = await startStack(replies, { contextBudget: 32_768 });
    writeFileSync(join(stack.workspace, "slug.js"), slugSource);
    writeFileSync(join(stack.workspace, "slug.test.js"), slugTest);
  });
  afterAll(async () => stack?.stop());

  /** Rejects every approval the run asks for, as the person did, until the run ends. */
  async function rejectEverything(session: string): Promise<{ end: AgentEvent; rejectedTools: string[] }> {
    const decided = new Set<string>();
    const rejectedTools: string[] = [];
    let end: AgentEvent | undefined;
    const terminal = stack.terminal(session, undefined, 90_000).then((event) => (end = event));
    while (end === undefined) {
      const pending = stack.events.filter((event) => event.session === session && event.type === "approval.requested" && !decided.has((event.payload as { approval: string }).approval));
      for (const event of pending) {
        const payload = event.payload as { approval: string; tool: string };
        decided.add(payload.approval);
        rejectedTools.push(payload.tool);
        await stack.command("decision", { session, approval: payload.approval, decision: "reject", feedback: "No, do not touch that." });
      }
      await Promise.race([
        terminal,
        stack.waitFor((event) => event.session === session && event.type === "approval.requested" && !decided.has((event.payload as { approval: string }).approval), 90_000).catch(() => undefined),
      ]);
    }
    await terminal;
    return { end: end!, rejectedTools };
  }

  it("bug report, edit and command rejected, completion claims 'Fixed … 20 tests passed' → completion.rejected quoting the claims, then unverified", async () => {
    const started = await stack.command("start", { task: "uppercase letters vanish when lowercase is false", workspace: stack.workspace });
    expect(started).toMatchObject({ ok: true });
    const session = started.result.session as string;
    const { end, rejectedTools } = await rejectEverything(session);

    expect(rejectedTools).toEqual(["replace_in_file", "run_command"]);
    expect(
      end.type,
      stack.events
        .filter((e) => e.session === session)
        .map((e) => (e.type === "tool.completed" ? `${e.type}:${(e.payload as { tool: string }).tool}` : e.type))
        .join(" "),
    ).toBe("run.completed");
    expect(end.payload).toMatchObject({ state: "unverified", result: expect.stringContaining("INCOMPLETE (unverified)") });
    expect(readFileSync(join(stack.workspace, "slug.js"), "utf8")).toBe(slugSource);

    const rejections = stack.events.filter((event) => event.session === session && event.type === "completion.rejected");
    expect(rejections).toHaveLength(2);
    const first = rejections[0].payload as { missing: string[]; instruction: string; claims: Array<{ kind: string; quote: string; events_show: string }> };
    expect(first.missing).toEqual(expect.arrayContaining(["artifact", "claims"]));
    const quotes = first.claims.map((claim) => claim.quote);
    expect(quotes).toEqual(expect.arrayContaining(["Fixed buildPatternSlug in slug.js", "node slug.test.js", "20 tests passed"]));
    const fileClaim = first.claims.find((claim) => claim.kind === "file_changed")!;
    expect(fileClaim.events_show).toContain("replace_in_file slug.js was rejected by the person");
    const commandClaim = first.claims.find((claim) => claim.kind === "command")!;
    expect(commandClaim.events_show).toContain("`node slug.test.js` was proposed but rejected by the person");
    expect(first.instruction).toContain("Every change proposed in this run was rejected");

    // The model was told, in its next request, which claim no event backs.
    const afterRejection = stack.modelRequests()[4];
    expect(JSON.stringify(afterRejection.messages)).toContain("20 tests passed");
    expect(JSON.stringify(afterRejection.messages)).toContain("no event of this run shows");

    const unverified = stack.events.find((event) => event.session === session && event.type === "completion.unverified");
    expect(unverified?.payload).toMatchObject({ missing: expect.arrayContaining(["artifact", "claims"]), claims: expect.arrayContaining([expect.objectContaining({ quote: "20 tests passed" })]) });
    expect(stack.events.some((event) => event.session === session && event.type === "run.completed" && (event.payload as { state: string }).state === "done")).toBe(false);
    expect(stack.invalidEvents).toEqual([]);
    const status = await stack.command("status", { session });
    expect(status.result).toMatchObject({ state: "unverified" });
  });
});
