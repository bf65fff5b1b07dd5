import { settingTable, type ToolDescriptor } from "@aide/contracts";
import type { ModelFit } from "../context/model-fit.js";
import type { SystemPromptInput } from "../context/system-prompt-input.js";
import type { RunContext } from "../run/run-context.js";
import { verdictOptions } from "../run/run-policies.js";
import type { GrammarShaping, RunAddedCall, Strategy, VerdictOptions } from "./strategy.js";
import { strategyRegistry } from "./strategy-registry.js";

/**
 * The loop's side of the strategies: each function runs one hook of the run's active strategies,
 * in the registry's order. A strategy is active when the run turns it on and every setting it acts
 * only with (the setting table's `requires`) is on too.
 */
export function activeStrategies(context: RunContext, registry: readonly Strategy[] = strategyRegistry): Strategy[] {
  const experiment = context.session.record.experiment;
  return registry.filter((strategy) => {
    const on = strategy.activeIn ? strategy.activeIn(context) : experiment?.[strategy.setting] === true;
    const needs: readonly string[] = settingTable[strategy.setting].requires ?? [];
    return on && needs.every((other) => experiment?.[other as keyof typeof experiment] === true);
  });
}

/** The system contract's options the strategies add. */
export async function strategySystemPrompt(context: RunContext, fit: ModelFit): Promise<Partial<SystemPromptInput>> {
  let options: Partial<SystemPromptInput> = {};
  for (const strategy of activeStrategies(context)) if (strategy.systemPrompt) options = { ...options, ...(await strategy.systemPrompt(context, fit)) };
  return options;
}

/** The strategies' blocks of the first turn's stable prefix (empty text: none) and their facts for `context.built`. */
export async function strategyPrefix(context: RunContext, fit: ModelFit, budgetChars: number, runCall: RunAddedCall): Promise<{ text: string; facts: Record<string, number> }> {
  const texts: string[] = [];
  let facts: Record<string, number> = {};
  for (const strategy of activeStrategies(context)) {
    if (!strategy.stablePrefix) continue;
    const block = await strategy.stablePrefix(context, fit, budgetChars, runCall);
    if (block.text !== "") texts.push(block.text);
    facts = { ...facts, ...block.facts };
  }
  return { text: texts.join("\n\n"), facts };
}

/** The gate's options for this run, the strategies' completion hooks applied. */
export function completionOptions(context: RunContext): VerdictOptions {
  return activeStrategies(context).reduce((options, strategy) => strategy.completion?.(options) ?? options, verdictOptions(context.policies));
}

/** The local model's grammar for one request, as the active strategies shape it. */
export async function shapeGrammar(context: RunContext, offered: readonly string[]): Promise<GrammarShaping> {
  const shaping: GrammarShaping = { offered, verdict: completionOptions(context), excluded: [], importsToRead: [] };
  for (const strategy of activeStrategies(context)) if (strategy.grammar) await strategy.grammar(context, shaping);
  shaping.excluded = [...new Set(shaping.excluded)];
  return shaping;
}

/** After a batch: each active strategy's step, their notices for the model in order. */
export async function afterBatchNotices(context: RunContext, runCall: RunAddedCall): Promise<string[]> {
  const notices: string[] = [];
  for (const strategy of activeStrategies(context)) if (strategy.afterBatch) notices.push(...(await strategy.afterBatch(context, runCall)));
  return notices;
}

/** A reply without a usable call: the first instruction an active strategy gives in place of "fix the call" (each sees the errors), or undefined. */
export function unusableReplyInstruction(context: RunContext, errors: readonly string[], tools: readonly ToolDescriptor[]): string | undefined {
  const instructions = activeStrategies(context).map((strategy) => strategy.unusableReply?.(context, errors, tools));
  return instructions.find((instruction) => instruction !== undefined);
}
