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
  /** The reply stopped at the output limit inside this call (and parameter): `model.responded` names it. */
  cut?: { tool: string; parameter?: string };
}

/** What to send instead, by the parameter the output limit cut (the model acts on this). */
function shorterAdvice(tool: string, param: string | undefined): string {
  switch (param) {
    case "search":
      return "Send a shorter <search>: a few lines that identify the place, and only those lines' new text in <replace>.";
    case "replace":
      return "Send a shorter <replace>: change a smaller part of the file per call.";
    case "diff":
      return "Send fewer, shorter blocks: each <search> a few lines that identify the place.";
    case "content":
      return "Write a shorter file, or change a part of it with replace_in_file.";
    case undefined:
      return `Send a shorter <${tool}> call.`;
    default:
      return `Send a shorter <${param}>.`;
  }
}

/** The message for a call the output limit cut: which call and parameter, and what to do. */
export function cutMessage(tool: string, param: string | undefined, limitTokens: number): string {
  const place = param === undefined ? `the <${tool}> call` : `<${param}> of <${tool}>`;
  return `Your reply reached the output limit (${limitTokens} tokens) inside ${place}, so the call was cut off and nothing ran. ${shorterAdvice(tool, param)}`;
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
  // A block left open at the end of a reply that stopped at the output limit was cut, not malformed.
  const open = reply.finish_reason === "length" ? parsed.errors.find((error) => error.open !== undefined)?.open : undefined;
  return {
    calls: parsed.calls.map((call) => ({ id: generateId(), name: call.name, arguments: call.arguments, status: "queued", network: false })),
    errors: parsed.errors.map((error) => {
      if (open !== undefined && error.open === open) return `${open.tool}: ${cutMessage(open.tool, open.param, reply.usage.completion_tokens)}`;
      return error.tool ? `${error.tool}: ${error.message}` : error.message;
    }),
    prose: parsed.prose,
    ...(open !== undefined ? { cut: { tool: open.tool, ...(open.param !== undefined ? { parameter: open.param } : {}) } } : {}),
  };
}
