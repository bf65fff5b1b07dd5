import type { z } from "zod";
import type { InstructionsForgetRequestSchema, InstructionsListRequestSchema, InstructionsListSchema } from "@aide/contracts";
import { checkWorkspace } from "../config/workspace-check.js";
import { estimateTokens, instructionsModelText } from "../instructions/instructions-block.js";
import { foldersOfPaths } from "../instructions/instruction-folders.js";
import type { Orchestrator } from "../orchestrator.js";

type ListRequest = z.infer<typeof InstructionsListRequestSchema>;
type ForgetRequest = z.infer<typeof InstructionsForgetRequestSchema>;

function workspaceOf(orchestrator: Orchestrator, input: string): string {
  const { workspaceRoots: roots, userHome: home, allowHomeWorkspace } = orchestrator.seams.config;
  return checkWorkspace(input, { roots, home, allowHomeWorkspace });
}

/**
 * `agent.cmd.instructions` (`aide instructions`): the instruction files that apply to the
 * workspace (its root, and the folders asked for), read through the tools service as a run reads
 * them, each with its state: trusted, never, undecided, or changed since the stored decision.
 */
export async function listInstructions(orchestrator: Orchestrator, request: ListRequest): Promise<z.infer<typeof InstructionsListSchema>> {
  const workspace = workspaceOf(orchestrator, request.workspace);
  const folders = ["", ...foldersOfPaths((request.folders ?? []).map((folder) => `${folder.replace(/\/$/, "")}/`))];
  const files = (await orchestrator.seams.tools.instructions?.("instructions-list", workspace, folders)) ?? [];
  const store = orchestrator.seams.instructionTrust;
  const listed = [];
  for (const file of files) {
    const stored = await store?.get(workspace, file.path);
    const state = stored === undefined ? "undecided" : stored.digest !== file.digest ? "changed" : stored.answer === "trust" ? "trusted" : "never";
    listed.push({
      path: file.path,
      digest: file.digest,
      bytes: file.bytes,
      tokens: file.text === undefined ? Math.ceil(file.bytes / 4) : estimateTokens(instructionsModelText(file.text)),
      state,
      ...(stored !== undefined ? { decided_at: stored.decided_at, decided_by: stored.user } : {}),
    } as const);
  }
  return { workspace, files: listed };
}

/** `agent.cmd.instructions_forget` (`aide instructions forget PATH`): the next run asks again. */
export async function forgetInstructions(orchestrator: Orchestrator, request: ForgetRequest): Promise<{ path: string; forgotten: boolean }> {
  const workspace = workspaceOf(orchestrator, request.workspace);
  const path = request.path.replace(/^\.\//, "");
  const forgotten = (await orchestrator.seams.instructionTrust?.forget(workspace, path)) ?? false;
  return { path, forgotten };
}
