import type { ChatTool } from "@aide/contracts";
import { catalogEntries } from "./tool-call-grammar.js";

export interface TextToolCall {
  name: string;
  arguments: Record<string, string>;
}

export interface TextToolCallParse {
  prose: string;
  calls: TextToolCall[];
  errors: string[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function trimOneNewline(value: string): string {
  return value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}

/**
 * A strict parser for the XML text protocol, used to check grammar-constrained replies: prose,
 * then blocks whose tool exists, whose parameters exist, whose required parameters are present
 * (of one argument set, where the schema has `anyOf`) and whose trailing text is only whitespace. (The orchestrator has its own tolerant parser.)
 */
export function parseTextToolCalls(text: string, tools: ChatTool[]): TextToolCallParse {
  const entries = new Map(catalogEntries(tools).map((entry) => [entry.name, entry]));
  const calls: TextToolCall[] = [];
  const errors: string[] = [];
  const open = new RegExp(`<(${[...entries.keys()].map(escapeRegExp).join("|") || "(?!)"})>`, "g");
  const first = open.exec(text);
  const prose = first ? text.slice(0, first.index) : text;
  let position = first ? first.index : text.length;
  while (position < text.length) {
    // Only whitespace after the last call is allowed (a model often ends with a newline or two).
    if (text.slice(position).trim() === "") break;
    open.lastIndex = position;
    const match = open.exec(text);
    if (!match || text.slice(position, match.index).trim() !== "") {
      errors.push(`unexpected text at ${position}: ${JSON.stringify(text.slice(position, position + 40))}`);
      break;
    }
    const name = match[1];
    const close = text.indexOf(`</${name}>`, match.index);
    if (close < 0) {
      errors.push(`<${name}> is not closed`);
      break;
    }
    const body = text.slice(match.index + match[0].length, close);
    const entry = entries.get(name)!;
    const args: Record<string, string> = {};
    const param = /<([A-Za-z_][A-Za-z0-9_-]*)>([\s\S]*?)<\/\1>/gy;
    let rest = 0;
    const trimmedBody = body;
    for (;;) {
      while (rest < trimmedBody.length && /\s/.test(trimmedBody[rest])) rest++;
      if (rest >= trimmedBody.length) break;
      param.lastIndex = rest;
      const found = param.exec(trimmedBody);
      if (!found) {
        errors.push(`<${name}> has malformed content at ${JSON.stringify(trimmedBody.slice(rest, rest + 30))}`);
        break;
      }
      if (!entry.params.some((p) => p.name === found[1])) errors.push(`<${name}> has no parameter ${found[1]}`);
      args[found[1]] = trimOneNewline(found[2]);
      rest = param.lastIndex;
    }
    for (const p of entry.params) if (p.required && !(p.name in args)) errors.push(`<${name}> misses ${p.name}`);
    // Argument sets (anyOf): the call must be exactly one of them, its required keys and no others.
    const fits = (set: { name: string; required: boolean }[]) => set.every((p) => !p.required || p.name in args) && Object.keys(args).every((key) => set.some((p) => p.name === key));
    if (entry.sets && !entry.sets.some(fits))
      errors.push(
        `<${name}> matches none of its argument sets (${entry.sets
          .map((set) =>
            set
              .filter((p) => p.required)
              .map((p) => p.name)
              .join("+"),
          )
          .join(" | ")})`,
      );
    calls.push({ name, arguments: args });
    position = close + name.length + 3;
  }
  return { prose, calls, errors };
}
