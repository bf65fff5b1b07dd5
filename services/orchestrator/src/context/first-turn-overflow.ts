import { AideError } from "@aide/contracts";
import type { ModelFit } from "./model-fit.js";

export interface FirstTurnOverflowInput {
  model: string;
  fit: ModelFit;
  /** Tokens the prompt needed and the window the model holds, as the model service reported them. */
  needed?: number;
  limit?: number;
  systemChars: number;
  taskChars: number;
  tools: number;
}

/**
 * CONTEXT_FULL on the first turn: nothing can be compacted yet, so "compact the history" would be
 * wrong advice. The message says which window and which tier were tried and what to change.
 */
export function firstTurnOverflow(input: FirstTurnOverflowInput): AideError {
  const window = input.limit ?? input.fit.windowTokens;
  const needs = input.needed !== undefined ? `needs ${input.needed} tokens` : "does not fit";
  const changes = [
    input.fit.tier === "full" && window !== undefined && window > 8192
      ? "the full prompt tier was used because the window is over 8192 tokens; a probe (`aide models probe`) measures the real window"
      : undefined,
    "use a model with a larger window (`aide models` lists them)",
    "raise contextSize/contextBudget in models.json if the model was trained for more (the GGUF's trained window is the ceiling)",
    input.taskChars > 2000 ? `shorten the task (${input.taskChars} characters)` : undefined,
  ].filter((part): part is string => part !== undefined);
  const message =
    `The first turn's prompt ${needs} but model ${input.model}'s window holds ${window ?? "an unknown number of"} tokens ` +
    `(prompt tier ${input.fit.tier}: the system contract with ${input.tools} tools is ${input.systemChars} characters, the task ${input.taskChars}; window from ${input.fit.source}). ` +
    `Nothing can be compacted on the first turn: ${changes.join("; or ")}.`;
  return new AideError("CONTEXT_FULL", message, {
    ...(input.needed !== undefined ? { needed: input.needed } : {}),
    ...(window !== undefined ? { limit: window } : {}),
    tier: input.fit.tier,
    model: input.model,
  });
}
