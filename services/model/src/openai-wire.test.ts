import { describe, expect, it } from "vitest";
import { ModelChatRequestSchema } from "@aide/contracts";
import { OpenAiSpecSchema } from "./model-spec.js";
import { openAiBody } from "./openai-wire.js";

const tools = [{ name: "list_dir", description: "List", parameters: { type: "object", properties: { max_entries: { type: "integer", minimum: 1, maximum: 2000 } } } }];
const request = (extra: Record<string, unknown> = {}) =>
  ModelChatRequestSchema.parse({ request_id: "r1", session: "s1", messages: [{ role: "user", content: "hi" }], tools, tool_choice: "required", ...extra });
const spec = (flavor: string, extra: Record<string, unknown> = {}) => OpenAiSpecSchema.parse({ id: "m", provider: "openai", baseUrl: "http://127.0.0.1:8080/v1", model: "m", flavor, ...extra });

describe("openAiBody for llama-server", () => {
  it("sends the XML tool-call grammar (with the request's scope and schema bounds) and keeps the prompt cache", () => {
    const body = openAiBody(spec("llamacpp"), request({ grammar_scope: "reply", grammar_schema: true }));
    expect(body.cache_prompt).toBe(true);
    expect(body.grammar).toMatch(/^root ::= ws call\n/);
    expect(body.grammar).toContain('"<max_entries>" ([1-9] |');
    expect(body).not.toHaveProperty("tools");
  });

  it("the completion_grammar strategy reaches llama-server: an excluded tool stays out of the grammar, and the grammar keeps the reply's budget", () => {
    const completion = { name: "attempt_completion", description: "Finish", parameters: { type: "object", properties: { result: { type: "string" } }, required: ["result"] } };
    const both = request({ tools: [...tools, completion] });
    expect(openAiBody(spec("llamacpp"), both).grammar).toContain('"<attempt_completion>"');
    const excluded = openAiBody(spec("llamacpp"), ModelChatRequestSchema.parse({ ...both, grammar_exclude_tools: ["attempt_completion"] }));
    expect(excluded.grammar).not.toContain("attempt_completion");
    expect(excluded.grammar).toContain('"<list_dir>"');
  });

  it("sends no grammar when the request turns it off, when calls are native, or to other servers", () => {
    expect(openAiBody(spec("llamacpp"), request({ grammar: false }))).not.toHaveProperty("grammar");
    expect(openAiBody(spec("llamacpp", { nativeTools: true }), request())).not.toHaveProperty("grammar");
    expect(openAiBody(spec("openai"), request())).not.toHaveProperty("grammar");
    expect(openAiBody(spec("openai"), request())).not.toHaveProperty("cache_prompt");
  });
});
