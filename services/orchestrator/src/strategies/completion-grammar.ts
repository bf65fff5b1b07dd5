import type { RunContext } from "../run/run-context.js";
import type { Strategy, VerdictOptions } from "./strategy.js";

const COMPLETION = "attempt_completion";

/**
 * The completion_grammar strategy (issue 28; `evidence`, off unless the start sets it): while the
 * run has no evidence the gate could accept, the local model's grammar leaves out
 * `attempt_completion` (it stays in the prompt, so the cached prefix does not change). Both real
 * models' first call was an empty completion in 47-51 of 55 attempts, each refused by the gate;
 * this removes only an option the gate would certainly refuse. "Could accept" is the ledger's own
 * verdict on an empty result with the measurements kind and a question's answer left out (a
 * result's numbers and an answer are what only the completion's text can supply); the gate still
 * judges every completion.
 */
export function grammarExcludedTools(context: RunContext, offered: readonly string[], options: VerdictOptions): string[] {
  if (!offered.includes(COMPLETION)) return [];
  const { policies } = context;
  const required = policies.required.filter((kind) => kind !== "measurements");
  // The answer to a question is the completion's own text too.
  const verdict = policies.ledger.evaluate(required, "", { ...options, answerRequired: false });
  return verdict.satisfied ? [] : [COMPLETION];
}

export const completionGrammar: Strategy = {
  setting: "completion_grammar",
  activeIn: (context) => context.session.record.experiment?.completion_grammar === "evidence",
  grammar(context, shaping) {
    shaping.excluded.push(...grammarExcludedTools(context, shaping.offered, shaping.verdict));
  },
};
