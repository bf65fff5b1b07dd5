import { AideError, aideError, type ChatMessage, type ModelChatResult, type ToolDescriptor } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";

export interface ModelTurn {
  reply: ModelChatResult;
  /** Wall time spent waiting for the model (for the loop's own overhead figure). */
  waitedMs: number;
}

/** Step 2: ask the model, streaming its deltas as `model.delta` events. */
export async function requestModelStep(context: RunContext, messages: ChatMessage[], tools: ToolDescriptor[]): Promise<ModelTurn> {
  const { seams, session } = context;
  const requestId = seams.generateId();
  const iteration = context.state.iterations;
  await session.emit("model.requested", { request_id: requestId, model: session.record.model || "(default)", iteration }, context.depth, context.run);
  const started = performance.now();
  let reply: ModelChatResult;
  try {
    reply = await seams.model.chat(
      {
        request_id: requestId,
        session: session.record.id,
        model: session.record.model || undefined,
        messages,
        tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
        stream: true,
        timeout_ms: seams.config.modelTimeoutMs,
      },
      (text) => void session.emit("model.delta", { request_id: requestId, text }, context.depth, context.run),
      session.signal,
    );
  } catch (error) {
    if (session.signal.aborted) throw aideError("ABORTED");
    const detail = error instanceof AideError ? `${error.code}: ${error.message}` : (error as Error).message;
    throw aideError("MODEL_FAILED", { detail });
  }
  const waitedMs = performance.now() - started;
  await session.emit(
    "model.responded",
    {
      request_id: requestId,
      text: reply.text,
      tool_calls: reply.tool_calls.length,
      finish_reason: reply.finish_reason,
      prompt_tokens: reply.usage.prompt_tokens,
      completion_tokens: reply.usage.completion_tokens,
      duration_ms: Math.round(waitedMs * 1000) / 1000,
    },
    context.depth,
    context.run,
  );
  return { reply, waitedMs };
}
