import { compactInstructionsBudgetTokens, instructionsCutMarker, instructionsHeading, instructionsNoPermissionLine, renderUntrusted, type PromptTier } from "@aide/contracts";
import { neutralizeTags } from "../context/wrap-tool-result.js";

/** Tokens as the prompt budget counts them (about 4 characters each, as the code map does). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The run's budget for instructions: the configured one, at most 400 tokens in the compact tier. */
export function instructionsBudgetTokens(configured: number, tier: PromptTier): number {
  return tier === "compact" ? Math.min(configured, compactInstructionsBudgetTokens) : configured;
}

/**
 * A file's text as the model reads it: control and invisible characters as visible tokens (the
 * same rendering the person saw, so nothing hidden reaches the model), tool-call-like tags
 * neutralized so the text cannot pose as a call.
 */
export function instructionsModelText(raw: string): string {
  return neutralizeTags(renderUntrusted(raw, { target: "model", invisible: true }).text).text;
}

export interface FittedText {
  text: string;
  tokens: number;
  truncated: boolean;
}

/** The text within `budget` tokens: whole, or cut at a line end where it can be, with the visible marker. */
export function fitInstructions(text: string, budget: number): FittedText {
  const total = estimateTokens(text);
  if (total <= budget) return { text, tokens: total, truncated: false };
  const marker = instructionsCutMarker(budget, total);
  const room = Math.max(0, budget * 4 - marker.length - 1);
  let head = text.slice(0, room);
  const lineEnd = head.lastIndexOf("\n");
  if (lineEnd > room / 2) head = head.slice(0, lineEnd);
  const shown = estimateTokens(head);
  return { text: `${head}\n${instructionsCutMarker(shown, total)}`, tokens: estimateTokens(head) + estimateTokens(marker) + 1, truncated: true };
}

/** One trusted file in the prompt: its heading, the line saying what it is (and cannot do), its text. */
export function instructionsSection(path: string, text: string): string {
  return `${instructionsHeading(path)}\n${instructionsNoPermissionLine}\n${text}`;
}
