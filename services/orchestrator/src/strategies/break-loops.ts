import type { ToolDescriptor } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import { repeatedParseErrorInstruction } from "./repeated-parse-error.js";
import type { Strategy } from "./strategy.js";
import { strategyState } from "./strategy-state.js";

/**
 * The loop_breaker strategy over a finished batch: a call that failed the same way twice gets
 * the breaker's instruction instead of its error (the tool.completed event keeps the real one);
 * a third time ends the run with MISTAKE_LIMIT, naming the call. Off unless the start sets it.
 */
export function breakLoopsStep(context: RunContext): void {
  if (context.outcome) return;
  for (const call of context.state.batch) {
    const outcome = call.outcome;
    if (!outcome) continue;
    const code = outcome.metadata["error_code"];
    const verdict = context.policies.loopBreaker.observe(
      { name: call.name, arguments: call.arguments },
      { is_error: outcome.is_error, output: outcome.output, changed_paths: outcome.changed_paths, ...(typeof code === "string" ? { error_code: code } : {}) },
    );
    if (verdict.action === "redirect") call.outcome = { ...outcome, output: verdict.message };
    if (verdict.action === "stop") {
      context.outcome = { kind: "failed", code: "MISTAKE_LIMIT", message: `The run stopped: ${verdict.message}` };
      return;
    }
  }
}

/**
 * The loop_breaker strategy over a reply with no usable call: the same parse errors as the previous
 * turn's reply get a different instruction (repeated-parse-error.ts). A reply of the turn before
 * with a call or without errors is not a repeat: only the errors of the directly preceding turn count.
 */
function unusableReply(context: RunContext, errors: readonly string[], tools: readonly ToolDescriptor[]): string | undefined {
  const state = strategyState<{ errors?: readonly string[]; iteration?: number }>(context, "loop_breaker", () => ({}));
  const previous = state.iteration === context.state.iterations - 1 ? state.errors : undefined;
  state.errors = errors;
  state.iteration = context.state.iterations;
  return repeatedParseErrorInstruction(errors, previous, tools);
}

export const loopBreaker: Strategy = {
  setting: "loop_breaker",
  afterBatch: (context) => {
    breakLoopsStep(context);
    return [];
  },
  unusableReply,
};
