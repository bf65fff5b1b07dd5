import type { ModelChatResult, ToolDescriptor } from "@aide/contracts";
import { parseToolCalls, toParserSpecs } from "../parser/index.js";
import type { BatchCall } from "../session/session-record.js";

const parserSpecs = new WeakMap<ToolDescriptor[], ReturnType<typeof toParserSpecs>>();

export interface ParsedTurn {
  calls: BatchCall[];
  /** Problems the model must fix (unknown tool, unclosed block, missing parameter). */
  errors: string[];
  /** The message without its tool-call blocks (what events may show). */
  prose: string;
}

/**
 * Step 3: the model's message becomes calls. Native tool calls (when the provider has them) and
 * the XML text protocol land in the same `BatchCall` shape. Only the model's own message is ever
 * parsed: tool results enter the transcript wrapped as data and never come back here.
 */
export function parseCallsStep(reply: ModelChatResult, catalog: ToolDescriptor[], generateId: () => string): ParsedTurn {
  if (reply.tool_calls.length > 0) {
    const known = new Set(catalog.map((tool) => tool.name));
    const calls: BatchCall[] = [];
    const errors: string[] = [];
    for (const native of reply.tool_calls) {
      if (!known.has(native.name)) {
        errors.push(`Unknown tool ${native.name}. Known tools: ${[...known].join(", ")}.`);
        continue;
      }
      calls.push({ id: generateId(), name: native.name, arguments: native.arguments, status: "queued", network: false, native_id: native.id });
    }
    return { calls, errors, prose: reply.text };
  }
  let specs = parserSpecs.get(catalog);
  if (!specs) {
    specs = toParserSpecs(catalog);
    parserSpecs.set(catalog, specs);
  }
  const parsed = parseToolCalls(reply.text, specs);
  return {
    calls: parsed.calls.map((call) => ({ id: generateId(), name: call.name, arguments: call.arguments, status: "queued", network: false })),
    errors: parsed.errors.map((error) => (error.tool ? `${error.tool}: ${error.message}` : error.message)),
    prose: parsed.prose,
  };
}
