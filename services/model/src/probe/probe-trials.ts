import type { ChatTool, ModelChatRequest, ModelChatResult, ToolTrials } from "@aide/contracts";
import { parseTextToolCalls } from "../tool-call-parse.js";

/** A small catalog shaped like the real one; bounded strings so a weak model's calls can close. */
export const probeTools: ChatTool[] = [
  {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string", maxLength: 40, description: "the file" } }, required: ["path"], additionalProperties: false },
  },
  {
    name: "list_dir",
    description: "List a folder",
    parameters: { type: "object", properties: { path: { type: "string", maxLength: 40, description: "the folder" } }, required: ["path"], additionalProperties: false },
  },
  {
    name: "attempt_completion",
    description: "Finish the task",
    parameters: { type: "object", properties: { result: { type: "string", maxLength: 40, description: "what was done" } }, required: ["result"], additionalProperties: false },
  },
];

const SYSTEM = [
  "You are a coding agent. Answer with exactly one tool call.",
  "Write a call as XML: the tool name as the outer tag, one tag per parameter:",
  "<read_file>\n<path>src/index.ts</path>\n</read_file>",
  "Tools: read_file(path), list_dir(path), attempt_completion(result).",
].join("\n");

export type TrialChat = (request: ModelChatRequest) => Promise<ModelChatResult>;

export interface TrialOptions {
  trials: number;
  session: string;
  /** Constrain decoding (local models); undefined leaves the spec's default. */
  grammar?: boolean;
  /** Count calls the server returned parsed (native tools) as well as calls written as text. */
  native: boolean;
  requestId: (index: number) => string;
}

/**
 * N short tasks that each want one call. A trial is valid when the reply holds exactly one
 * well-formed call of an offered tool, parsed by the server (native) or written in the XML
 * protocol (checked with the strict parser). A failed request counts as an invalid trial.
 */
export async function runToolTrials(chat: TrialChat, options: TrialOptions): Promise<ToolTrials> {
  let valid = 0;
  let native = 0;
  const names = new Set(probeTools.map((tool) => tool.name));
  for (let index = 0; index < options.trials; index++) {
    try {
      const reply = await chat({
        request_id: options.requestId(index),
        session: options.session,
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: `Task ${index + 1}: look at the file notes${index + 1}.txt.` },
        ],
        tools: probeTools,
        tool_choice: "required",
        ...(options.grammar !== undefined ? { grammar: options.grammar } : {}),
        max_tokens: 256,
        temperature: 0.7,
        seed: index + 1,
        stream: false,
      });
      const nativeCalls = reply.tool_calls.filter((call) => names.has(call.name));
      if (nativeCalls.length > 0) native++;
      const text = parseTextToolCalls(reply.text, probeTools);
      const good = reply.tool_calls.length === 1 ? nativeCalls.length === 1 : text.calls.length === 1 && text.errors.length === 0;
      if (good) valid++;
    } catch {
      // an error reply is an invalid trial
    }
  }
  return { trials: options.trials, valid, ...(options.native ? { native } : {}) };
}
