import { AideError, aideError, type ChatMessage, type ModelChatResult, type ToolDescriptor } from "@aide/contracts";
import { ProseDeltaFilter } from "../events/prose-delta-filter.js";
import type { RunContext } from "../run/run-context.js";
import { runCatalog } from "./build-context.js";
import { shapeGrammar } from "../strategies/run-strategies.js";

export interface ModelTurn {
  reply: ModelChatResult;
  requestId: string;
  /** Wall time spent waiting for the model (for the loop's own overhead figure). */
  waitedMs: number;
}

/** Step 2: ask the model, streaming its deltas as `model.delta` events. */
export async function requestModelStep(context: RunContext, messages: ChatMessage[], tools: ToolDescriptor[]): Promise<ModelTurn> {
  const { seams, session } = context;
  const requestId = seams.generateId();
  const iteration = context.state.iterations;
  const offered = tools.map((tool) => tool.name);
  // The active strategies' grammar: tools left out (they stay in the prompt), paths and edits spelled.
  const { excluded, paths, edits, requiredOnly } = await shapeGrammar(context, offered);
  await session.emit(
    "model.requested",
    { request_id: requestId, model: session.record.model || "(default)", iteration, ...(excluded.length > 0 ? { grammar_excluded: excluded } : {}) },
    context.depth,
    context.run,
  );
  const started = performance.now();
  const prose = new ProseDeltaFilter(runCatalog(context).map((tool) => tool.name));
  let reply: ModelChatResult;
  try {
    reply = await seams.model.chat(
      {
        request_id: requestId,
        session: session.record.id,
        model: session.record.model || undefined,
        messages,
        tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
        // Every turn of the loop acts through a tool (attempt_completion ends it), so a local
        // model's grammar requires a call after its prose instead of allowing prose forever.
        tool_choice: "required",
        // The tool-call format the run's settings name (the model's entry decides otherwise).
        ...(session.record.experiment?.tool_format !== undefined ? { tool_format: session.record.experiment.tool_format } : {}),
        // The probe measured whether this model's calls are more often valid with the grammar.
        ...(context.modelFit?.grammar !== undefined ? { grammar: context.modelFit.grammar } : {}),
        // An eval arm's grammar variant: the whole reply or prose then the call; the schemas' bounds or not.
        ...(context.modelFit?.grammarScope !== undefined ? { grammar_scope: context.modelFit.grammarScope } : {}),
        ...(context.modelFit?.grammarSchema !== undefined ? { grammar_schema: context.modelFit.grammarSchema } : {}),
        ...(excluded.length > 0 ? { grammar_exclude_tools: excluded } : {}),
        ...(paths !== undefined ? { grammar_paths: paths } : {}),
        ...(edits !== undefined ? { grammar_edits: edits } : {}),
        ...(requiredOnly === true ? { grammar_required_only: true } : {}),
        stream: true,
        timeout_ms: seams.config.modelTimeoutMs,
      },
      (text) => {
        const visible = prose.push(text);
        if (visible !== "") void session.emit("model.delta", { request_id: requestId, text: visible }, context.depth, context.run);
      },
      session.signal,
    );
  } catch (error) {
    if (session.signal.aborted) throw aideError("ABORTED");
    if (error instanceof AideError && (error.code === "CONTEXT_FULL" || error.code === "MODEL_FAILED")) throw error;
    const detail = error instanceof AideError ? `${error.code}: ${error.message}` : (error as Error).message;
    throw aideError("MODEL_FAILED", { detail });
  }
  // The model that answered (the service's default when the run named none), for lists and costs.
  if (context.depth === 0 && reply.model !== "") session.record.served_model = reply.model;
  return { reply, requestId, waitedMs: performance.now() - started };
}

/**
 * `model.responded` after parsing: its text is the prose only (tool-call blocks, with their write
 * bodies and patches, never go into events), plus the number of calls found.
 */
export async function emitResponded(context: RunContext, turn: ModelTurn, prose: string, calls: number, callErrors = 0, cut?: { tool: string; parameter?: string }): Promise<void> {
  const { reply } = turn;
  await context.session.emit(
    "model.responded",
    {
      request_id: turn.requestId,
      text: prose,
      tool_calls: calls,
      finish_reason: reply.finish_reason,
      prompt_tokens: reply.usage.prompt_tokens,
      completion_tokens: reply.usage.completion_tokens,
      duration_ms: Math.round(turn.waitedMs * 1000) / 1000,
      ...cachedPromptTokens(reply.usage),
      ...(reply.model === "" ? {} : { model: reply.model }),
      ...(reply.usage.evaluated_prompt_tokens !== undefined ? { evaluated_prompt_tokens: reply.usage.evaluated_prompt_tokens } : {}),
      ...(callErrors > 0 ? { call_errors: callErrors } : {}),
      ...(cut !== undefined ? { cut: { ...cut, limit_tokens: reply.usage.completion_tokens } } : {}),
    },
    context.depth,
    context.run,
  );
}

/** Prompt tokens the model did not evaluate (served from its KV cache), when the reply says how many it evaluated. */
function cachedPromptTokens(usage: ModelTurn["reply"]["usage"]): { cached_prompt_tokens?: number } {
  if (usage.evaluated_prompt_tokens === undefined) return {};
  return { cached_prompt_tokens: Math.max(0, usage.prompt_tokens - usage.evaluated_prompt_tokens) };
}
