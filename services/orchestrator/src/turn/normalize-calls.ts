import { decodeEscapedNewlines, dedupeCommands } from "../guards/index.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall } from "../session/session-record.js";

export const maxCallsPerResponse = 8;

export interface NormalizedBatch {
  calls: BatchCall[];
  /** Said to the model with the results (batch cut, duplicates dropped, calls after completion ignored). */
  notices: string[];
}

const contentTools = new Set(["write_file"]);

/**
 * Step 4: at most eight calls per response (`tool.batch_limited` past that), duplicate commands
 * dropped, nothing after `attempt_completion`, and repeated escaped newlines that weak models
 * write into source files decoded.
 */
export async function normalizeCallsStep(context: RunContext, input: BatchCall[]): Promise<NormalizedBatch> {
  const notices: string[] = [];
  let calls = input;
  if (calls.length > maxCallsPerResponse) {
    await context.session.emit("tool.batch_limited", { requested: calls.length, executed: maxCallsPerResponse }, context.depth, context.run);
    notices.push(`You sent ${calls.length} tool calls; only the first ${maxCallsPerResponse} ran. Send at most ${maxCallsPerResponse} per message.`);
    calls = calls.slice(0, maxCallsPerResponse);
  }
  const completionIndex = calls.findIndex((call) => call.name === "attempt_completion");
  if (completionIndex >= 0 && completionIndex < calls.length - 1) {
    notices.push(`${calls.length - completionIndex - 1} call(s) after attempt_completion were ignored; attempt_completion must be the last call.`);
    calls = calls.slice(0, completionIndex + 1);
  }
  const deduped = dedupeCommands(calls);
  if (deduped.dropped.length > 0) {
    notices.push(`${deduped.dropped.length} duplicate command(s) in this message were dropped; each command runs once per message.`);
  }
  calls = deduped.kept as BatchCall[];
  for (const call of calls) {
    if (!contentTools.has(call.name)) continue;
    const content = call.arguments["content"];
    const path = call.arguments["path"];
    if (typeof content !== "string" || typeof path !== "string") continue;
    const decoded = decodeEscapedNewlines(content, path);
    if (decoded.decoded) {
      call.arguments = { ...call.arguments, content: decoded.content };
      notices.push(`The content for ${path} had literal "\\n" sequences instead of line breaks; they were decoded. Write real line breaks.`);
    }
  }
  return { calls, notices };
}
