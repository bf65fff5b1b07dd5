import { expect } from "vitest";
import type { ChatMessage, ModelChatResult } from "@aide/contracts";
import type { Chat } from "./model-service.js";

export const SYSTEM = `You are a coding agent working in a small project. ${Array.from({ length: 24 }, (_, i) => `Rule ${i + 1}: read the files before changing them, and run the tests after.`).join(" ")}`;

/** Tokens at the end of the prefix probe that are not the system prefix (its "x" and turn markers). */
export const MARGIN = 16;

export interface Compaction {
  /** Prompt tokens of the system prefix alone (the system message and a one-word user turn). */
  prefix: number;
  after: ModelChatResult;
}

/** Two turns of `session`, a summary request (a one-off or not), then the turn after the compaction. */
export async function compactedTurn(chat: Chat, session: string, oneOff: boolean): Promise<Compaction> {
  const probe = await chat({
    request_id: `${session}-p`,
    session: `${session}-prefix`,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: "x" },
    ],
    max_tokens: 1,
  });
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: "Read notes.txt and tell me what it says." },
  ];
  const first = await chat({ request_id: `${session}-1`, session, messages });
  messages.push({ role: "assistant", content: first.text }, { role: "user", content: "Tool result: the file says hello." });
  const second = await chat({ request_id: `${session}-2`, session, messages });
  // The session's sequence is warm before the summary: the second turn reused the first.
  expect(second.usage.evaluated_prompt_tokens!, JSON.stringify(second.usage)).toBeLessThan(second.usage.prompt_tokens / 2);
  const history = messages
    .slice(1)
    .map((message) => `### ${message.role}\n${message.content}`)
    .join("\n\n");
  const summary = await chat({
    request_id: `${session}-s`,
    session,
    ...(oneOff ? { one_off: true } : {}),
    max_tokens: 24,
    messages: [
      { role: "system", content: "Summarize the conversation below in a few lines." },
      { role: "user", content: `History to summarize:\n\n${history}\n\nWrite the summary now.` },
    ],
  });
  const after = await chat({
    request_id: `${session}-3`,
    session,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: `[Summary of the earlier conversation]\n${summary.text}` },
      { role: "user", content: "Now run the tests." },
    ],
  });
  return { prefix: probe.usage.prompt_tokens, after };
}

export function reused(result: ModelChatResult): number {
  return result.usage.prompt_tokens - result.usage.evaluated_prompt_tokens!;
}
