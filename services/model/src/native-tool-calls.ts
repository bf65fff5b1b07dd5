import type { NativeToolCall } from "@aide/contracts";

/** The end of the JSON object that starts at `start` (balanced braces outside strings), or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return index + 1;
  }
  return -1;
}

/** `{"name": …, "arguments": {…}}` (or `"parameters"`, or arguments as a JSON string), else undefined. */
function asCall(json: string): { name: string; arguments: Record<string, unknown> } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.name !== "string" || record.name === "") return undefined;
  let args = record.arguments ?? record.parameters ?? {};
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  return { name: record.name, arguments: args as Record<string, unknown> };
}

/**
 * The calls a model wrote in its own format (Qwen and Hermes-style templates: a JSON object with
 * `name` and `arguments` inside `<tool_call>…</tool_call>`; the tags may be missing where the
 * detokenizer drops special tokens), in order, and the prose around them. Text that is not such an
 * object stays prose: the orchestrator then tells the model it sent no call.
 */
export function parseNativeToolCalls(text: string, newId: (index: number) => string): { text: string; calls: NativeToolCall[] } {
  const calls: NativeToolCall[] = [];
  let prose = "";
  let cursor = 0;
  while (cursor < text.length) {
    const open = text.indexOf("{", cursor);
    if (open === -1) break;
    const end = objectEnd(text, open);
    const call = end === -1 ? undefined : asCall(text.slice(open, end));
    if (call === undefined) {
      prose += text.slice(cursor, open + 1);
      cursor = open + 1;
      continue;
    }
    prose += text.slice(cursor, open);
    calls.push({ id: newId(calls.length), ...call });
    cursor = end;
  }
  prose += text.slice(cursor);
  // A call the model fenced (```json … ```) leaves an empty fence behind: not prose. Fed back as the
  // model's own text it taught the 1.5B to answer with the empty fence alone.
  const cleaned = prose.replace(/<\/?tool_call>/g, "").replace(/```[A-Za-z]*\s*```/g, "");
  return { text: cleaned.trim(), calls };
}
