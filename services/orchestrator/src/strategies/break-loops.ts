import type { RunContext } from "../run/run-context.js";

/**
 * The loop_breaker strategy over a finished batch: a call that failed the same way twice gets
 * the breaker's instruction instead of its error (the tool.completed event keeps the real one);
 * a third time ends the run with MISTAKE_LIMIT, naming the call. Off unless the start sets it.
 */
export function breakLoopsStep(context: RunContext): void {
  if (context.session.record.experiment?.loop_breaker !== true || context.outcome) return;
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
