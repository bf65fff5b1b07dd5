import { AideError, type ChatMessage } from "@aide/contracts";
import { firstTurnOverflow, modelFit, wrapToolResult } from "../context/index.js";
import type { BatchCall } from "../session/session-record.js";
import { buildContextStep, runCatalog, type BuiltContext } from "../turn/build-context.js";
import { executeToolCalls, runAddedCall } from "../turn/execute-tool-calls.js";
import { normalizeCallsStep } from "../turn/normalize-calls.js";
import { refuseUnofferedCalls } from "../turn/refuse-unoffered-calls.js";
import { parseCallsStep } from "../turn/parse-tool-calls.js";
import { emitResponded, requestModelStep } from "../turn/request-model.js";
import { afterBatchNotices, unusableReplyInstruction } from "../strategies/run-strategies.js";
import type { RunContext, RunOutcome } from "./run-context.js";
import { modelText } from "../context/model-text.js";
import { instructionsForTouchedFolders, resumeTouchedInstructions } from "../instructions/load-instructions.js";
import { NO_TOOL_CALL_NUDGE, NO_TOOL_CALL_NUDGE_NATIVE } from "../guards/index.js";

/**
 * The agent loop of one run: turns of build context → ask the model → parse → normalize →
 * gate/checkpoint/execute (scheduler) → record evidence → check completion, until completion is
 * accepted, a budget runs out, or a person aborts. Resumes a batch left over by a restart.
 */
export async function runLoop(context: RunContext): Promise<RunOutcome> {
  try {
    if (context.state.batch.length > 0) await finishBatch(context, []);
    await resumeTouchedInstructions(context);
    while (!context.outcome) {
      const stop = budgetExceeded(context);
      if (stop) return (context.outcome = stop);
      await turn(context);
    }
    return context.outcome;
  } catch (error) {
    if (context.session.signal.aborted) return (context.outcome = { kind: "aborted", reason: String(context.session.signal.reason ?? "aborted") });
    if (error instanceof AideError && (error.code === "MODEL_FAILED" || error.code === "CONTEXT_FULL")) {
      return (context.outcome = { kind: "failed", code: error.code, message: error.message });
    }
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
  // A strategy's run before the first turn may end the run (the person aborted at its approval).
  if (context.outcome) return;
  const modelTurn = await requestModelWithinWindow(context, built);
  const { reply } = modelTurn;
  const assistant: ChatMessage = { role: "assistant", content: modelText(reply.text) };
  if (reply.reasoning_content) assistant.reasoning_content = reply.reasoning_content;
  if (reply.tool_calls.length > 0) assistant.tool_calls = reply.tool_calls;
  context.state.transcript.push(assistant);
  const parsed = parseCallsStep(reply, runCatalog(context), context.seams.generateId);
  await emitResponded(context, modelTurn, parsed.prose, parsed.calls.length, parsed.errors.length, parsed.cut);
  if (parsed.calls.length === 0) return noCalls(context, parsed.errors);
  const normalized = await normalizeCallsStep(context, parsed.calls);
  await refuseUnofferedCalls(context, normalized.calls, modelTurn.tools);
  // Not persisted here: a read-only batch is safe to redo, and every side effect persists first.
  context.state.batch = normalized.calls;
  await finishBatch(context, [...parsed.errors, ...normalized.notices]);
}

/**
 * The model refused the prompt as larger than its window (our character estimate was too
 * generous for its tokenizer): shrink the run's budget, rebuild the context, and ask again. A second
 * refusal, or nothing left to compact, ends the run with CONTEXT_FULL.
 */
async function requestModelWithinWindow(context: RunContext, built: BuiltContext) {
  try {
    return { ...(await requestModelStep(context, built.messages, built.tools)), tools: built.tools };
  } catch (error) {
    if (!(error instanceof AideError && error.code === "CONTEXT_FULL")) throw error;
    // Only the task is in the transcript: there is nothing to compact.
    if (context.state.transcript.filter((message) => message.role !== "system").length <= 1) throw overflowOnFirstTurn(context, built, error);
    context.contextChars = Math.max(2_000, Math.floor(built.chars * 0.6));
    // The smaller budget makes the context step compact (or, failing that, drop the oldest part).
    const retry = await buildContextStep(context);
    if (retry.chars >= built.chars) throw error;
    return { ...(await requestModelStep(context, retry.messages, retry.tools)), tools: retry.tools };
  }
}

function overflowOnFirstTurn(context: RunContext, built: BuiltContext, error: AideError): AideError {
  const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  const needed = number(error.details?.needed);
  const limit = number(error.details?.limit);
  return firstTurnOverflow({
    model: context.session.record.model || "(the default model)",
    fit: context.modelFit ?? modelFit(context.seams.config.contextChars, undefined, undefined),
    ...(needed !== undefined ? { needed } : {}),
    ...(limit !== undefined ? { limit } : {}),
    systemChars: built.messages[0]?.role === "system" ? built.messages[0].content.length : 0,
    taskChars: context.task.length,
    tools: built.tools.length,
  });
}

/**
 * Progress that needs no durability barrier (read-only work is safe to repeat after a crash):
 * the write is queued in order behind earlier ones and not awaited. Every side effect (a
 * mutation, an approval) awaits its own persist first.
 */
function persistInBackground(context: RunContext): void {
  context.persist().catch((error: unknown) => context.logger.warn({ err: error }, "session write failed"));
}

/** A reply with no usable call: parse errors count as mistakes; plain prose gets one nudge, then fails. */
async function noCalls(context: RunContext, errors: string[]): Promise<void> {
  const mistakes = context.policies.mistakes;
  let content: string;
  if (errors.length > 0) {
    const verdict = mistakes.recordMistake();
    if (verdict.exceeded) {
      context.outcome = { kind: "failed", code: "MISTAKE_LIMIT", message: `The run stopped after ${verdict.count} consecutive mistakes: ${errors.join("; ")}` };
      return;
    }
    content = `Your tool call could not be used:\n${errors.map((error) => `- ${error}`).join("\n")}\nFix the call and send it again.`;
    // A strategy may answer a repeated mistake differently (loop_breaker).
    content = unusableReplyInstruction(context, errors, runCatalog(context)) ?? content;
  } else {
    const verdict = mistakes.noToolCall(context.session.record.experiment?.tool_format === "native" ? NO_TOOL_CALL_NUDGE_NATIVE : NO_TOOL_CALL_NUDGE);
    if (verdict.action === "fail") {
      context.outcome = { kind: "failed", code: "MISTAKE_LIMIT", message: verdict.message };
      return;
    }
    context.state.counters.nudges += 1;
    content = verdict.message;
  }
  context.state.counters.mistakes = mistakes.count;
  context.state.transcript.push({ role: "user", content });
  persistInBackground(context);
}

/** Runs the current batch, then appends its results (wrapped as untrusted data) to the transcript. */
async function finishBatch(context: RunContext, notices: string[]): Promise<void> {
  await executeToolCalls(context);
  // The active strategies' steps after a batch (strategy-registry.ts orders them).
  const strategyNotices = await afterBatchNotices(context, runAddedCall);
  const batch = context.state.batch;
  appendResults(context, batch, [...notices, ...strategyNotices]);
  context.state.batch = [];
  // Nested project instructions on the way to what the batch touched (asked about like the first ones).
  await instructionsForTouchedFolders(context, batch);
  if (!context.outcome) {
    countMistakes(context, batch);
    observeProgress(context, batch);
  }
  persistInBackground(context);
}

/** A batch whose every call was refused (plan mode, guards, forbidden) is a mistake; anything that ran resets the streak. */
function countMistakes(context: RunContext, batch: BatchCall[]): void {
  const refused = batch.length > 0 && batch.every((call) => call.outcome?.metadata["refused"] === true);
  if (!refused) {
    context.policies.mistakes.recordSuccess();
    context.state.counters.mistakes = 0;
    return;
  }
  const verdict = context.policies.mistakes.recordMistake();
  context.state.counters.mistakes = verdict.count;
  if (verdict.exceeded) {
    context.outcome = { kind: "failed", code: "MISTAKE_LIMIT", message: `The run stopped after ${verdict.count} consecutive mistakes: every call was refused` };
  }
}

/** The MCP server an outcome came from (its result is marked with that provenance). */
function mcpSourceOf(metadata: Record<string, unknown>): { mcp_server?: string } {
  const server = metadata["mcp_server"];
  return typeof server === "string" ? { mcp_server: server } : {};
}

function errorCodeOf(metadata: Record<string, unknown>): string | undefined {
  const code = metadata["error_code"];
  return typeof code === "string" ? code : undefined;
}

function appendResults(context: RunContext, batch: BatchCall[], notices: string[]): void {
  const native = batch.filter((call) => call.native_id !== undefined);
  for (const call of native) {
    const outcome = call.outcome;
    if (!outcome) continue;
    const content = wrapToolResult({
      call_id: call.id,
      tool: call.name,
      output: outcome.output,
      is_error: outcome.is_error,
      error_code: errorCodeOf(outcome.metadata),
      ...mcpSourceOf(outcome.metadata),
    });
    context.state.transcript.push({ role: "tool", content, tool_call_id: call.native_id });
  }
  const textual = batch.filter((call) => call.native_id === undefined && call.outcome);
  const parts = textual.map((call) => {
    const outcome = call.outcome!;
    const extra = outcome.notices.length > 0 ? `\n[notices: ${outcome.notices.join("; ")}]` : "";
    return wrapToolResult({
      call_id: call.id,
      tool: call.name,
      output: outcome.output + extra,
      is_error: outcome.is_error,
      error_code: errorCodeOf(outcome.metadata),
      ...mcpSourceOf(outcome.metadata),
    });
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
  if (!verdict.stalled) return;
  const reason = verdict.reason ?? "no workspace change over several turns";
  if (context.state.counters.stall_warnings === 0) {
    // First time: tell the model (appended to the results it is about to read) and give it a chance.
    context.state.counters.stall_warnings = 1;
    context.policies.stall.reset();
    const last = context.state.transcript.at(-1);
    if (last?.role === "user") last.content = `${last.content}\n\nWarning: ${reason}`;
    else context.state.transcript.push({ role: "user", content: `Warning: ${reason}` });
    return;
  }
  context.outcome = { kind: "failed", code: "STALLED", message: `The run made no progress: ${reason}` };
}
