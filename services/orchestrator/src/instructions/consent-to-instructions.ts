import { renderUntrusted, type InstructionFile, type InstructionsApproval, type InstructionsSource } from "@aide/contracts";
import { textApprovalPreview } from "../approvals/text-approval-preview.js";
import type { RunContext } from "../run/run-context.js";
import type { ApprovalRecord, BatchCall } from "../session/session-record.js";
import { instructionsAnswerOf, reofferApproval, requestApproval } from "../turn/gate-approval.js";
import type { DecisionOutcome } from "../approvals/approval-waiter.js";
import { estimateTokens, instructionsModelText } from "./instructions-block.js";

/** How this run treats the files it finds: ask the person, trust them (and say why), or load none. */
export type InstructionsMode = { kind: "ask" } | { kind: "trust"; source: Exclude<InstructionsSource, "trusted"> } | { kind: "ignore" };

/** The run's mode: an experiment setting first (an eval arm), then `--trust-instructions`, then the configuration. */
export function instructionsModeOf(context: RunContext): InstructionsMode {
  const record = context.session.record;
  const setting = record.experiment?.instructions;
  if (setting === false) return { kind: "ignore" };
  if (setting === true) return { kind: "trust", source: "setting" };
  if (record.trust_instructions === true) return { kind: "trust", source: "flag" };
  const configured = context.seams.config.instructions ?? "ask";
  if (configured === "ignore") return { kind: "ignore" };
  if (configured === "trust") return { kind: "trust", source: "config" };
  return { kind: "ask" };
}

export interface ConsentedFile {
  path: string;
  digest: string;
  /** The text the model reads (rendered), before the budget cut. */
  modelText: string;
  source: InstructionsSource;
}
export interface SkippedFile {
  path: string;
  digest: string;
  reason: "never" | "not_this_time" | "ignored";
}
export interface Consent {
  loaded: ConsentedFile[];
  skipped: SkippedFile[];
}

/**
 * Settles consent for each file found: a stored decision for the same digest applies as it is; a
 * file never decided, or changed since (`changed: true`), is put to the person as an ordinary
 * approval (`kind: "instructions"`), so every surface that answers approvals answers this one, and
 * a pending one is offered again under its id after a restart. Auto-approve rules never answer it.
 * An abort ends the run (`context.outcome`).
 */
export async function consentToInstructions(context: RunContext, files: InstructionFile[], mode: InstructionsMode, budgetTokens: number): Promise<Consent> {
  const consent: Consent = { loaded: [], skipped: [] };
  for (const file of files) {
    if (context.outcome) break;
    if (file.text === undefined) {
      // Too large to show or not text: never loaded, and said so.
      context.logger.warn({ path: file.path, bytes: file.bytes }, "a project instructions file is too large or not text; it is not loaded");
      consent.skipped.push({ path: file.path, digest: file.digest, reason: "ignored" });
      continue;
    }
    const modelText = instructionsModelText(file.text);
    if (mode.kind === "ignore") {
      consent.skipped.push({ path: file.path, digest: file.digest, reason: "ignored" });
      continue;
    }
    if (mode.kind === "trust") {
      consent.loaded.push({ path: file.path, digest: file.digest, modelText, source: mode.source });
      continue;
    }
    const answer = await decide(context, { ...file, text: file.text }, modelText, budgetTokens);
    if (answer === "trust") consent.loaded.push({ path: file.path, digest: file.digest, modelText, source: "trusted" });
    else if (answer !== "abort") consent.skipped.push({ path: file.path, digest: file.digest, reason: answer });
  }
  return consent;
}

async function decide(context: RunContext, file: InstructionFile & { text: string }, modelText: string, budgetTokens: number): Promise<"trust" | "never" | "not_this_time" | "abort"> {
  const record = context.session.record;
  const store = context.seams.instructionTrust;
  const stored = await store?.get(record.workspace, file.path).catch((error: unknown) => {
    context.logger.warn({ err: error, path: file.path }, "reading the instructions trust store failed; asking the person");
    return undefined;
  });
  if (stored !== undefined && stored.digest === file.digest) return stored.answer;
  const tokens = estimateTokens(modelText);
  const shown: InstructionsApproval = {
    path: file.path,
    text: renderUntrusted(file.text, { target: "screen" }).text,
    tokens,
    bytes: file.bytes,
    digest: file.digest,
    changed: stored !== undefined,
    budget_tokens: budgetTokens,
    truncated: tokens > budgetTokens,
  };
  const outcome = await ask(context, shown);
  if (outcome.decision === "abort") {
    context.outcome = { kind: "aborted", reason: outcome.feedback ?? "aborted by the person at an approval" };
    return "abort";
  }
  const answer = outcome.decision === "timeout" ? "not_this_time" : instructionsAnswerOf(outcome);
  if (answer === "trust" || answer === "never") {
    await store
      ?.put(record.workspace, { path: file.path, digest: file.digest, answer, decided_at: context.seams.now().toISOString(), user: record.user })
      .catch((error: unknown) => context.logger.warn({ err: error, path: file.path }, "storing the instructions decision failed; it applies to this run only"));
  }
  return answer;
}

/** The approval for one file: the pending one of this run offered again (after a restart), else a new one. */
async function ask(context: RunContext, shown: InstructionsApproval): Promise<DecisionOutcome> {
  const pending = context.session.record.approvals.find((approval) => isPendingFor(approval, context.run, shown));
  if (pending !== undefined) return reofferApproval(context, pending);
  const call: BatchCall = { id: `instructions-${shown.digest.slice(0, 16)}`, name: "instructions", arguments: { path: shown.path, digest: shown.digest }, status: "queued", network: false };
  const sentence = `${shown.changed ? "Changed since you last decided: trust" : "Trust"} the project instructions in ${shown.path} (${shown.tokens} tokens, sha256 ${shown.digest.slice(0, 12)}…) for this workspace? Trusted text goes into the model's prompt as data; it grants no permission.`;
  return requestApproval(context, {
    call,
    preview: textApprovalPreview(call, { kind: "read", mutating: false, command: sentence, paths: [shown.path] }),
    network: "none",
    networkTokens: [],
    needsProtectedConfirmation: false,
    kind: "instructions",
    instructions: shown,
  });
}

function isPendingFor(approval: ApprovalRecord, run: string, shown: InstructionsApproval): boolean {
  if (approval.tool !== "instructions" || approval.run !== run) return false;
  const payload = approval.event_payload["instructions"] as { path?: unknown; digest?: unknown } | undefined;
  return payload?.path === shown.path && payload.digest === shown.digest;
}
