/**
 * A scripted step with `when_prompt_contains` answers by what the request really holds: the
 * same transcript gives one reply when the text is in a message and the other when it is not
 * (the eval's instructions oracle relies on this, so its arms differ by the prompt alone).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ModelChatRequestSchema, type ModelChatRequest } from "@aide/contracts";
import { ScriptedProvider, ScriptedTranscriptSchema } from "./scripted-provider.js";
import { ScriptedSpecSchema, type ScriptedSpec } from "./model-spec.js";

const dir = mkdtempSync(join(tmpdir(), "aide-scripted-condition-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spec(replies: unknown[]): ScriptedSpec {
  const transcript = join(dir, `t-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(transcript, JSON.stringify({ replies }));
  return ScriptedSpecSchema.parse({ id: "oracle", provider: "scripted", transcript });
}

const request = (session: string, system: string): ModelChatRequest =>
  ModelChatRequestSchema.parse({
    request_id: `r-${session}`,
    session,
    messages: [
      { role: "system", content: system },
      { role: "user", content: "add the function" },
    ],
  });

async function reply(provider: ScriptedProvider, model: ScriptedSpec, req: ModelChatRequest): Promise<string> {
  const answer = await provider.chat({ spec: model, request: req, signal: new AbortController().signal, onDelta: () => {} });
  return answer.text;
}

describe("a conditional scripted step", () => {
  const steps = [{ text: "guided", when_prompt_contains: "prefix every function with tx_", otherwise: { text: "unguided" } }, { text: "second" }];

  it("gives its own reply when a message contains the text, and otherwise when none does", async () => {
    const provider = new ScriptedProvider();
    const model = spec(steps);
    expect(await reply(provider, model, request("with", "## Project instructions\nprefix every function with tx_ please"))).toBe("guided");
    expect(await reply(provider, model, request("without", "## Project instructions\nnothing about names"))).toBe("unguided");
    // The cursor moves on either way.
    expect(await reply(provider, model, request("without", "x"))).toBe("second");
    await provider.close();
  });

  it("is refused with only one of its two fields", () => {
    expect(ScriptedTranscriptSchema.safeParse({ replies: [{ text: "a", when_prompt_contains: "x" }] }).success).toBe(false);
    expect(ScriptedTranscriptSchema.safeParse({ replies: [{ text: "a", otherwise: { text: "b" } }] }).success).toBe(false);
    expect(ScriptedTranscriptSchema.safeParse({ replies: steps }).success).toBe(true);
  });
});
