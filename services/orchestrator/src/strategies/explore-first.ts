import type { RunContext } from "../run/run-context.js";
import type { Strategy } from "./strategy.js";

/** Tools that read the workspace and change nothing. */
export const OBSERVING = ["read_file", "list_dir", "search_files", "list_code_definitions", "code_map"];

/**
 * The explore_first strategy (issue 28; off unless the start sets it): until this run has a
 * successful result of a tool that reads the workspace, the local model's grammar offers only such
 * tools (the prompt still lists every tool, so the cached prefix does not change). Measured before
 * it: Gemma 3 270M's and SmolLM2-135M's first call was an empty completion, a write of a file named
 * `- `, or `process_poll` on an id made of the task's words, in almost every attempt; none of them
 * had looked at a file first. Nothing is refused by this: a call the grammar leaves out cannot be
 * spelled, and once the run has read something every offered tool is back.
 */
export function exploreFirstExcluded(context: RunContext, offered: readonly string[]): string[] {
  if (!offered.some((name) => OBSERVING.includes(name))) return [];
  const explored = context.state.tool_log.some((entry) => !entry.is_error && OBSERVING.includes(entry.tool));
  return explored ? [] : offered.filter((name) => !OBSERVING.includes(name));
}

export const exploreFirst: Strategy = {
  setting: "explore_first",
  grammar(context, shaping) {
    shaping.excluded.push(...exploreFirstExcluded(context, shaping.offered));
  },
};
