import { countEscapeTokens, escapeWarning, renderUntrusted } from "@aide/contracts";
import type { ApprovalPayload } from "./approval-view.js";
import type { Style } from "./terminal-style.js";

/** At most this many lines of the file are printed at the prompt (the rest is counted). */
const maxLines = 200;

/**
 * A project instructions approval as the terminal shows it: the path, size in tokens, digest,
 * whether it changed since the person decided, then the file's text (the orchestrator's screen
 * rendering, rendered again: a client does not trust that it was), every line marked as the
 * file's so its text cannot pass for the prompt's own lines.
 */
export function describeInstructionsApproval(payload: ApprovalPayload, style: Style): string {
  const file = payload.instructions!;
  const path = renderUntrusted(file.path).text;
  const text = renderUntrusted(file.text).text;
  const lines = [style.bold(style.yellow(`? project instructions ${path}`)) + ` — ${file.tokens} tokens, ${file.bytes} bytes, sha256 ${renderUntrusted(file.digest).text.slice(0, 12)}…`];
  lines.push(
    file.changed ? style.inverse(style.red(" CHANGED ")) + " " + style.red("this file changed since you last decided on it") : style.dim("first time this file is asked about in this workspace"),
  );
  const count = countEscapeTokens(text);
  if (count > 0) lines.push(style.inverse(style.red(` ${escapeWarning(count)} `)));
  if (file.truncated) lines.push(style.yellow(`longer than the prompt's budget of ${file.budget_tokens} tokens: the model would get it cut, with a marker`));
  const body = text.split("\n");
  const shown = body.slice(0, maxLines).map((line) => style.bold("│ ") + line);
  if (body.length > maxLines) shown.push(style.dim(`│ … ${body.length - maxLines} more lines (the whole file: ${path})`));
  lines.push(shown.join("\n"));
  lines.push(style.dim("Trusted, it goes into the model's prompt as the project's conventions; it grants no permission (approvals, the jail and the sandbox stay as they are)."));
  return lines.join("\n");
}

export type InstructionsAnswer = { decision: "approve"; answer: "trust" } | { decision: "reject"; answer: "not_this_time" | "never" } | { decision: "abort" };

export const instructionsQuestion = "[t]rust / [n]ot this time / ne[v]er / a[b]ort? ";

/** One answer to the instructions prompt; undefined asks again. */
export function parseInstructionsAnswer(input: string): InstructionsAnswer | undefined {
  const text = input.trim().toLowerCase();
  if (text.startsWith("t")) return { decision: "approve", answer: "trust" };
  if (text.startsWith("v") || text === "never") return { decision: "reject", answer: "never" };
  if (text.startsWith("n")) return { decision: "reject", answer: "not_this_time" };
  if (text.startsWith("b")) return { decision: "abort" };
  return undefined;
}
