import { AideError, type ChatMessage } from "@aide/contracts";
import { wrapToolResult } from "../context/index.js";
import type { BatchCall } from "../session/session-record.js";
import { buildContextStep, runCatalog } from "../turn/build-context.js";
import { executeToolCalls } from "../turn/execute-tool-calls.js";
import { normalizeCallsStep } from "../turn/normalize-calls.js";
import { parseCallsStep } from "../turn/parse-tool-calls.js";
import { requestModelStep } from "../turn/request-model.js";
import type { RunContext, RunOutcome } from "./run-context.js";

export const mistakeLimit = 3;

const nudgeText =
  "Your last message had no tool call. Every reply must use exactly the tool-call format, for example:\n<read_file>\n<path>README.md</path>\n</read_file>\nWhen the task is finished and verified, call attempt_completion with the result.";

/**
 * The agent loop of one run: turns of build context → ask the model → parse → normalize →
 * gate/checkpoint/execute (scheduler) → record evidence → check completion, until completion is
 * accepted, a budget runs out, or a person aborts. Resumes a batch left over by a restart.
 */
export async function runLoop(context: RunContext): Promise<RunOutcome> {
  try {
    if (context.state.batch.length > 0) await finishBatch(context, []);
    while (!context.outcome) {
      const stop = budgetExceeded(context);
      if (stop) return (context.outcome = stop);
      await turn(context);
    }
    return context.outcome;
  } catch (error) {
    if (context.session.signal.aborted) return (context.outcome = { kind: "aborted", reason: String(context.session.signal.reason ?? "aborted") });
    if (error instanceof AideError && error.code === "MODEL_FAILED") return (context.outcome = { kind: "failed", code: "MODEL_FAILED", message: error.message });
    context.logger.error({ err: error }, "run failed");
    return (context.outcome = { kind: "failed", code: "INTERNAL", message: (error as Error).message });
  }
}

function budgetExceeded(context: RunContext): RunOutcome | undefined {
  if (context.session.signal.aborted) return { kind: "aborted", reason: String(context.session.signal.reason ?? "aborted") };
  if (context.state.iterations >= context.maxIterations) {
    return { kind: "failed", code: "ITERATION_LIMIT", message: `The run reached its limit of ${context.maxIterations} iterations without an accepted completion` };
  }
  const elapsed = context.seams.now().getTime() - context.startedAtMs;
  if (elapsed > context.seams.config.runBudgetMs) {
    return { kind: "failed", code: "RUN_BUDGET_EXCEEDED", message: `The run exceeded its wall-clock budget of ${context.seams.config.runBudgetMs} ms` };
  }
  return undefined;
}

async function turn(context: RunContext): Promise<void> {
  context.state.iterations += 1;
  const built = await buildContextStep(context);
  const { reply } = await requestModelStep(context, built.messages, built.tools);
  const assistant: ChatMessage = { role: "assistant", content: reply.text };
  if (reply.reasoning_content) assistant.reasoning_content = reply.reasoning_content;
  if (reply.tool_calls.length > 0) assistant.tool_calls = reply.tool_calls;
  context.state.transcript.push(assistant);
  const parsed = parseCallsStep(reply, runCatalog(context), context.seams.generateId);
  if (parsed.calls.length === 0) return noCalls(context, parsed.errors);
  context.policies.mistakes.reset?.();
  context.state.counters.mistakes = parsed.errors.length > 0 ? context.state.counters.mistakes : 0;
  const normalized = await normalizeCallsStep(context, parsed.calls);
  context.state.batch = normalized.calls;
  await context.persist();
  await finishBatch(context, [...parsed.errors, ...normalized.notices]);
}

/** A reply with no usable call: parse errors count as mistakes; plain prose gets one nudge. */
async function noCalls(context: RunContext, errors: string[]): Promise<void> {
  const counters = context.state.counters;
  counters.mistakes += 1;
  if (counters.mistakes >= mistakeLimit) {
    const detail = errors.length > 0 ? errors.join("; ") : "replies without a tool call";
    context.outcome = { kind: "failed", code: "MISTAKE_LIMIT", message: `The run stopped after ${counters.mistakes} consecutive mistakes: ${detail}` };
    return;
  }
  let content: string;
  if (errors.length > 0) {
    content = `Your tool call could not be used:\n${errors.map((error) => `- ${error}`).join("\n")}\nFix the call and send it again.`;
  } else if (counters.nudges === 0) {
    counters.nudges += 1;
    content = nudgeText;
  } else {
    context.outcome = { kind: "failed", code: "MISTAKE_LIMIT", message: "The model replied twice without a tool call after being told how to call one" };
    return;
  }
  context.state.transcript.push({ role: "user", content });
  await context.persist();
}

/** Runs the current batch, then appends its results (wrapped as untrusted data) to the transcript. */
async function finishBatch(context: RunContext, notices: string[]): Promise<void> {
  await executeToolCalls(context);
  const batch = context.state.batch;
  appendResults(context, batch, notices);
  context.state.batch = [];
  if (!context.outcome) observeProgress(context, batch);
  await context.persist();
}

function appendResults(context: RunContext, batch: BatchCall[], notices: string[]): void {
  const native = batch.filter((call) => call.native_id !== undefined);
  for (const call of native) {
    const outcome = call.outcome;
    if (!outcome) continue;
    const content = wrapToolResult({ call_id: call.id, tool: call.name, output: outcome.output, is_error: outcome.is_error });
    context.state.transcript.push({ role: "tool", content, tool_call_id: call.native_id });
  }
  const textual = batch.filter((call) => call.native_id === undefined && call.outcome);
  const parts = textual.map((call) => {
    const outcome = call.outcome!;
    const extra = outcome.notices.length > 0 ? `\n[notices: ${outcome.notices.join("; ")}]` : "";
    return wrapToolResult({ call_id: call.id, tool: call.name, output: outcome.output + extra, is_error: outcome.is_error });
  });
  if (notices.length > 0) parts.push(notices.map((notice) => `Note: ${notice}`).join("\n"));
  if (parts.length > 0) context.state.transcript.push({ role: "user", content: parts.join("\n\n") });
}

/** Stall detection from workspace progress: no change and repeated reads over several turns. */
function observeProgress(context: RunContext, batch: BatchCall[]): void {
  const changedPaths = batch.flatMap((call) => call.outcome?.changed_paths ?? []);
  const readPaths = batch
    .filter((call) => call.name === "read_file" || call.name === "list_dir" || call.name === "search_files")
    .map((call) => String(call.arguments["path"] ?? call.arguments["pattern"] ?? ""));
  const verdict = context.policies.stall.observe({ changedPaths, readPaths });
  if (verdict.stalled) {
    context.outcome = { kind: "failed", code: "STALLED", message: `The run made no progress: ${verdict.reason ?? "no workspace change over several turns"}` };
  }
}
