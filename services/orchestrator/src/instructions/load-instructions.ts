import { defaultInstructionsBudgetTokens, type InstructionFile } from "@aide/contracts";
import type { ModelFit } from "../context/model-fit.js";
import type { RunContext } from "../run/run-context.js";
import { consentToInstructions, instructionsModeOf, type Consent } from "./consent-to-instructions.js";
import { fitInstructions, instructionsBudgetTokens, instructionsSection } from "./instructions-block.js";
import { foldersOnTheWay } from "./instruction-folders.js";

/**
 * The project instructions block of the run's stable prefix, settled once before the first turn:
 * the files found for the workspace root and the folders the task names (nearest wins: a deeper
 * file comes after, and overrides, a shallower one), each with the person's consent, cut to the
 * run's budget with a visible marker. Persisted with the session, so a restart keeps the same
 * prefix. Children get their root run's block. Any failure to read leaves the prefix without
 * instructions (logged); the run goes on.
 */
export async function loadInstructions(context: RunContext, fit: ModelFit): Promise<string> {
  const record = context.session.record;
  if (record.instructions !== undefined) return record.instructions.block;
  if (context.depth > 0) return "";
  const folders = ["", ...foldersOnTheWay(context.task)];
  const files = await readFiles(context, folders);
  const budget = instructionsBudgetTokens(context.seams.config.instructionsBudgetTokens ?? defaultInstructionsBudgetTokens, fit.tier);
  const consent = await consentToInstructions(context, files, instructionsModeOf(context), budget);
  if (context.outcome) return "";
  const block = await publish(context, consent, budget);
  record.instructions = { block, folders };
  await context.persist();
  return block;
}

async function readFiles(context: RunContext, folders: string[]): Promise<InstructionFile[]> {
  const record = context.session.record;
  const read = context.seams.tools.instructions;
  if (read === undefined) return [];
  try {
    return await read.call(context.seams.tools, record.id, record.workspace, folders);
  } catch (error) {
    context.logger.warn({ err: error }, "reading the project instruction files failed; the run goes on without them");
    return [];
  }
}

/**
 * The block (deeper files keep their text first when the budget is short, since the nearest
 * wins; shown shallow to deep) and the events that say what the prompt holds and what it does not.
 */
async function publish(context: RunContext, consent: Consent, budget: number): Promise<string> {
  let remaining = budget;
  const fitted = new Map<string, ReturnType<typeof fitInstructions>>();
  for (const file of [...consent.loaded].reverse()) {
    const fit = fitInstructions(file.modelText, Math.max(0, remaining));
    fitted.set(file.path, fit);
    remaining -= fit.tokens;
  }
  const loaded = consent.loaded.map((file) => ({ file, fit: fitted.get(file.path)! }));
  if (loaded.length > 0) {
    const files = loaded.map(({ file, fit }) => ({ path: file.path, digest: file.digest, tokens: fit.tokens, truncated: fit.truncated, source: file.source }));
    await context.session.emit("instructions.loaded", { files }, context.depth, context.run);
  }
  if (consent.skipped.length > 0) await context.session.emit("instructions.skipped", { files: consent.skipped }, context.depth, context.run);
  return loaded.map(({ file, fit }) => instructionsSection(file.path, fit.text)).join("\n\n");
}
