import type { RunContext } from "../run/run-context.js";
import type { CallOutcome } from "../session/session-record.js";
import { completionOptions } from "../strategies/run-strategies.js";

/**
 * Step 9: `attempt_completion` is accepted only when the evidence derived from the request is in
 * this run's tool events and every result the completion text claims (commands run, tests passing,
 * counts, exit codes, files changed) matches one of them. Without it: `completion.rejected`
 * quoting each unbacked claim, with a focused instruction for the model; once the completion
 * budget is spent: `completion.unverified` and an explicit incomplete result, never a laundered
 * success.
 */
export async function checkCompletion(context: RunContext, resultText: string): Promise<CallOutcome> {
  const { policies, session } = context;
  const verdict = policies.ledger.evaluate(policies.required, resultText, completionOptions(context));
  if (verdict.satisfied) {
    context.outcome = { kind: "done", result: resultText, evidence: verdict.evidence };
    return { is_error: false, output: "Completion accepted.", metadata: {}, changed_paths: [], notices: [] };
  }
  const budget = policies.completion.reject();
  context.state.counters.completion_attempts += 1;
  const missing = [...verdict.missing];
  const claims = verdict.claims.length > 0 ? { claims: verdict.claims } : {};
  if (budget.outcome === "unverified") {
    const unbacked = verdict.claims.map((claim) => `\n- "${claim.quote}": ${claim.events_show}`).join("");
    const result = `INCOMPLETE (unverified): ${resultText}\n\nThe run could not prove: ${missing.join(", ")}.${unbacked === "" ? "" : `\nClaims no event backs:${unbacked}`}`;
    await session.emit("completion.unverified", { missing, result, ...claims }, context.depth, context.run);
    context.outcome = { kind: "unverified", result, missing };
    return { is_error: true, output: result, metadata: {}, changed_paths: [], notices: [] };
  }
  await session.emit("completion.rejected", { missing, instruction: verdict.instruction, attempt: budget.rejections, ...claims }, context.depth, context.run);
  return {
    is_error: true,
    output: `Completion rejected: ${verdict.instruction}`,
    metadata: { missing },
    changed_paths: [],
    notices: [],
  };
}
