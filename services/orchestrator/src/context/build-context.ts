import type { ChatMessage } from "@aide/contracts";
import { environmentDetails, memoryBlock, type EnvironmentFacts, type MemoryInput, type MemoryLimits } from "./environment-details.js";

export type BuildContextInput = {
  system: string;
  /** Strings per the contract; memory records (`{ id, text }`) are accepted too. At most eight are used. */
  memories: MemoryInput[];
  /** How many memories of what length the prompt takes (`memoryLimitsFor` the tier; full by default). */
  memoryLimits?: MemoryLimits;
  messages: ChatMessage[];
  budgetChars: number;
  /** Rendered environment details, or the facts to render (workspace, mode, now). */
  environment: string | EnvironmentFacts;
  /**
   * The active strategies' blocks of the stable prefix, fixed for the run, already framed and cut
   * (the code map, the test command's output before turn 1); empty or absent: none.
   */
  strategyBlocks?: string;
  /** The trusted project instructions (`loadInstructions`: headed, cut to budget); empty or absent: none. */
  instructions?: string;
};

export type BuiltContext = { messages: ChatMessage[]; dropped: number; chars: number; needsCompaction: boolean };

/** Compact when the transcript passes this share of the budget, before anything has to be dropped. */
export const COMPACTION_THRESHOLD = 0.9;

const VISIBLE_ROLES = new Set<ChatMessage["role"]>(["user", "assistant", "tool"]);

/** UI markup rendered into old assistant messages is not fed back to the model (seed 002). */
function stripRenderedToolCalls(message: ChatMessage): ChatMessage {
  if (message.role !== "assistant" || !message.content.includes("<details")) return message;
  const content = message.content.replace(/<details\s+type=["']tool_calls["'][^>]*>[\s\S]*?<\/details>\s*/gi, "").trim();
  return content === message.content ? message : { ...message, content };
}

export function messageChars(message: ChatMessage): number {
  const calls = message.tool_calls === undefined ? 0 : JSON.stringify(message.tool_calls).length;
  return message.content.length + calls;
}

function truncateMiddle(message: ChatMessage, maxChars: number): ChatMessage {
  if (message.content.length <= maxChars) return message;
  const half = Math.max(0, Math.floor((maxChars - 80) / 2));
  const cut = message.content.length - 2 * half;
  return { ...message, content: `${message.content.slice(0, half)}\n[… ${cut} characters cut to fit the context …]\n${message.content.slice(-half)}` };
}

/**
 * Seed 002's `ContextPolicy.prepare` with a stable prefix: the system contract (with environment
 * details, the run's code map when there is one, and up to eight memories folded in once), then the transcript exactly as it was, only ever
 * appended to. When the transcript passes 90% of the budget, `needsCompaction` asks the caller to
 * summarize the oldest part once (`planCompaction`); if it is still over the budget, the oldest
 * messages are dropped newest-first as a fallback and counted in `dropped`.
 */
export function buildContext(input: BuildContextInput): BuiltContext {
  const header = [input.system, input.instructions ?? "", environmentDetails(input.environment), input.strategyBlocks ?? "", memoryBlock(input.memories, input.memoryLimits)].filter(
    (part) => part !== "",
  );
  const system: ChatMessage = { role: "system", content: header.join("\n\n") };
  const visible = input.messages.filter((message) => VISIBLE_ROLES.has(message.role)).map(stripRenderedToolCalls);
  const systemChars = messageChars(system);
  const available = Math.max(0, input.budgetChars - systemChars);
  const total = visible.reduce((sum, message) => sum + messageChars(message), 0);
  const needsCompaction = total > available * COMPACTION_THRESHOLD && visible.length > 1;
  let kept: ChatMessage[] = [];
  let used = 0;
  for (let index = visible.length - 1; index >= 0; index -= 1) {
    const size = messageChars(visible[index]);
    if (used + size > available) {
      if (kept.length === 0) {
        kept = [truncateMiddle(visible[index], available)];
        used = messageChars(kept[0]);
      }
      break;
    }
    kept.unshift(visible[index]);
    used += size;
  }
  // A tool result whose call was dropped would be an orphan the chat template rejects.
  while (kept.length > 1 && kept[0].role === "tool") {
    used -= messageChars(kept[0]);
    kept.shift();
  }
  return {
    messages: [system, ...kept],
    dropped: visible.length - kept.length,
    chars: systemChars + used,
    needsCompaction,
  };
}
