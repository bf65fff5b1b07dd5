import { defaultInstructionsBudgetTokens, instructionFileNames, type InstructionFile } from "@aide/contracts";
import type { ModelFit } from "../context/model-fit.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall } from "../session/session-record.js";
import { consentToInstructions, instructionsModeOf, type Consent } from "./consent-to-instructions.js";
import { fitInstructions, instructionsBudgetTokens, instructionsSection } from "./instructions-block.js";
import { foldersOfPaths, foldersOnTheWay } from "./instruction-folders.js";

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
  const budget = instructionsBudgetTokens(context.seams.config.instructionsBudgetTokens ?? defaultInstructionsBudgetTokens, fit.tier);
  const settled = await settleFolders(context, folders, budget, budget);
  if (context.outcome) return "";
  record.instructions = { block: settled.block, folders, budget_tokens: budget, tokens: settled.tokens };
  await context.persist();
  return settled.block;
}

/**
 * After a batch: the folders on the way to the files it touched that no earlier step looked at.
 * A file found there is asked about like the first ones; trusted, it joins the transcript (the
 * prefix is fixed for the run) under its own heading, after the results, within what is left of
 * the budget. Only the root run looks.
 */
export async function instructionsForTouchedFolders(context: RunContext, batch: BatchCall[]): Promise<void> {
  const record = context.session.record;
  const state = record.instructions;
  if (context.depth > 0 || state === undefined || context.outcome) return;
  const touched = batch.flatMap((call) => [call.arguments["path"], call.outcome?.metadata["path"], ...(call.outcome?.changed_paths ?? [])]).filter((path): path is string => typeof path === "string");
  const folders = foldersOfPaths(touched).filter((folder) => !state.folders.includes(folder));
  if (folders.length === 0) return;
  state.folders.push(...folders);
  await settleLater(context, folders);
}

/**
 * A run resumed after a restart while a later folder's file waited for the person (the batch that
 * touched it is over): that folder is settled again, so the same approval is offered again.
 */
export async function resumeTouchedInstructions(context: RunContext): Promise<void> {
  const record = context.session.record;
  if (context.depth > 0 || record.instructions === undefined) return;
  const folders = record.approvals
    .filter((approval) => approval.tool === "instructions" && approval.run === context.run)
    .map((approval) => (approval.event_payload["instructions"] as { path?: unknown } | undefined)?.path)
    .filter((path): path is string => typeof path === "string")
    .map(folderOf);
  if (folders.length > 0) await settleLater(context, [...new Set(folders)]);
}

/** The folder a found file belongs to (its path without the instruction file name). */
function folderOf(path: string): string {
  const name = instructionFileNames.find((candidate) => path === candidate || path.endsWith(`/${candidate}`));
  return name === undefined ? path.split("/").slice(0, -1).join("/") : path.slice(0, Math.max(0, path.length - name.length - 1));
}

async function settleLater(context: RunContext, folders: string[]): Promise<void> {
  const state = context.session.record.instructions!;
  const settled = await settleFolders(context, folders, state.budget_tokens, Math.max(0, state.budget_tokens - state.tokens));
  state.tokens += settled.tokens;
  if (settled.block !== "") context.state.transcript.push({ role: "user", content: settled.block });
  await context.persist();
}

async function settleFolders(context: RunContext, folders: string[], budget: number, remaining: number): Promise<{ block: string; tokens: number }> {
  const files = await readFiles(context, folders);
  if (files.length === 0) return { block: "", tokens: 0 };
  const consent = await consentToInstructions(context, files, instructionsModeOf(context), budget);
  if (context.outcome) return { block: "", tokens: 0 };
  return publish(context, consent, remaining);
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
async function publish(context: RunContext, consent: Consent, budget: number): Promise<{ block: string; tokens: number }> {
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
  return { block: loaded.map(({ file, fit }) => instructionsSection(file.path, fit.text)).join("\n\n"), tokens: loaded.reduce((sum, { fit }) => sum + fit.tokens, 0) };
}
