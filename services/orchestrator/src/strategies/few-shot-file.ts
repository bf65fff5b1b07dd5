import type { RunContext } from "../run/run-context.js";
import { listWorkspace } from "./list-workspace.js";
import { knownTestCommand, resolveTestCommand } from "./resolve-test-command.js";
import type { Strategy } from "./strategy.js";
import { strategyState } from "./strategy-state.js";

const SOURCE = /\.(js|mjs|cjs|ts|tsx|jsx|py|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift)$/;

/**
 * The workspace file the few_shot examples' read_file call names: a file of the listing that the
 * task names (its path, else its base name; the longest), else the first source file, else the
 * first file; undefined when the listing has none. A model that copies the example (Gemma 3 270M
 * copied `src/index.ts`, then the placeholder `FILE`, into every turn) then reads a real file,
 * most often the one the task is about.
 */
export function pickFewShotFile(listing: string[], task: string): string | undefined {
  const files = listing.filter((entry) => entry !== "" && !entry.endsWith("/") && !entry.endsWith("@"));
  const named = files
    .filter((file) => task.includes(file) || new RegExp(`(^|[^\\w.-])${(file.split("/").at(-1) ?? file).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\w-])`).test(task))
    .sort((a, b) => b.length - a.length);
  return named[0] ?? files.find((file) => SOURCE.test(file)) ?? files[0];
}

/**
 * Lists the workspace once before the first turn (the tools service's list_dir, recursive, 200
 * entries; no event: it is the prompt's own input, like the code map) and picks the file for the
 * few_shot examples. Any failure gives undefined: the examples keep their placeholder.
 */
export async function loadFewShotFile(context: RunContext): Promise<string | undefined> {
  const listing = await listWorkspace(context, 200, "the few_shot examples (they keep placeholders)");
  return listing === undefined ? undefined : pickFewShotFile(listing.entries, context.task);
}

/**
 * The few_shot strategy: one example of a good call per offered tool in the compact tier's system
 * contract (the full tier always has them). On the compact tier the read_file example names a real
 * file (listed once, before the prefix is built) and the run_command example the run's test command,
 * when the workspace has one.
 */
export const fewShot: Strategy = {
  setting: "few_shot",
  async systemPrompt(context, fit) {
    const state = strategyState<{ file?: string | null }>(context, "few_shot", () => ({}));
    if (state.file === undefined && fit.tier === "compact") {
      state.file = (await loadFewShotFile(context)) ?? null;
      await resolveTestCommand(context);
    }
    const file = state.file ?? undefined;
    const command = knownTestCommand(context)?.command;
    return { fewShot: true, ...(file !== undefined ? { fewShotFile: file } : {}), ...(command !== undefined ? { fewShotCommand: command } : {}) };
  },
};
