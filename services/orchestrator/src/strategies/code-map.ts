import { codeMapBlock, codeMapBudgetTokens } from "../context/code-map-block.js";
import type { ModelFit } from "../context/model-fit.js";
import type { RunContext } from "../run/run-context.js";
import type { Strategy } from "./strategy.js";

/**
 * The workspace's code map for the first turn's prefix (the tools service's `code_map`, its budget
 * from the model's fit), root run only. Any failure leaves the prefix without a map (logged); the
 * run goes on.
 */
async function loadCodeMap(context: RunContext, fit: ModelFit): Promise<{ text: string; tokens: number }> {
  const none = { text: "", tokens: 0 };
  if (context.depth > 0) return none;
  const record = context.session.record;
  const budget = codeMapBudgetTokens(fit);
  try {
    const result = await context.seams.tools.exec(record.id, record.workspace, { id: context.seams.generateId(), name: "code_map", arguments: { budget_tokens: budget } }, { network: false });
    const files = result.metadata?.["map_files"];
    if (result.is_error === true || !Array.isArray(files) || files.length === 0) return none;
    const tokens = result.metadata?.["map_tokens"];
    return { text: result.output, tokens: typeof tokens === "number" ? tokens : budget };
  } catch (error) {
    context.logger.warn({ err: error }, "the code map for the prompt prefix failed; the run goes on without it");
    return none;
  }
}

/**
 * The code_map strategy: the workspace's code map in the first turn's stable prefix, asked for once
 * before the first turn. On when the run's `code_map` setting says so, else when the configuration
 * does (AIDE_CODE_MAP_IN_PREFIX=1).
 */
export const codeMap: Strategy = {
  setting: "code_map",
  activeIn: (context) => (context.session.record.experiment?.code_map ?? context.seams.config.codeMapInPrefix) === true,
  async stablePrefix(context, fit) {
    const map = await loadCodeMap(context, fit);
    return map.text === "" ? { text: "" } : { text: codeMapBlock(map.text), facts: { code_map_tokens: map.tokens } };
  },
};
