import { el } from "./dom.js";
import { shown } from "./screen-text.js";

/** The three answers to a project's instruction file, and the decision body each sends. */
export const instructionsAnswers = [
  { action: "approve", text: "Trust", key: "A", className: "primary", decision: "approve", answer: "trust" },
  { action: "reject", text: "Not this time", key: "R", className: "", decision: "reject", answer: "not_this_time" },
  { action: "never", text: "Never", key: "Shift+N", className: "danger", decision: "reject", answer: "never" },
] as const;
export type InstructionsAction = (typeof instructionsAnswers)[number]["action"];

export interface InstructionsPayload {
  path?: unknown;
  text?: unknown;
  tokens?: unknown;
  bytes?: unknown;
  changed?: unknown;
  budget_tokens?: unknown;
  truncated?: unknown;
}

/** The question of an `instructions` approval, for the card's heading and the pinned bar. */
export function instructionsTitle(info: InstructionsPayload | undefined, paths: string[]): string {
  const path = info?.path !== undefined ? shown(info.path) : (paths[0] ?? "an instruction file");
  return `Trust the project instructions in ${path}?`;
}

/**
 * What the person decides on: the file's path, its size in tokens, whether it changed since it was
 * trusted, and its text — as text only (rendered again here: hidden and control characters read as
 * tokens), never parsed as HTML, so a hostile file's markup shows as the characters it is.
 */
export function instructionsBody(info: InstructionsPayload): HTMLElement {
  const tokens = Number(info.tokens ?? 0);
  const budget = Number(info.budget_tokens ?? 0);
  const facts = el("dl", { className: "instructions-facts" }, [
    el("dt", { text: "File" }),
    el("dd", { className: "instructions-path", text: shown(info.path) }),
    el("dt", { text: "Size" }),
    el("dd", { className: "instructions-tokens", text: `${tokens} tokens (${Number(info.bytes ?? 0)} bytes)${budget > 0 ? `; the model is given at most ${budget}` : ""}` }),
    el("dt", { text: "State" }),
    el("dd", {
      className: `instructions-changed ${info.changed === true ? "changed" : "new"}`,
      text: info.changed === true ? "CHANGED since you trusted it: read it again" : "Not trusted before",
    }),
  ]);
  const note = el("p", {
    className: "instructions-note",
    text: "Text from the workspace, not from you: trusting it gives the model this text as data. It grants no permission (approvals, the jail and the sandbox stay as they are).",
  });
  const text = el("pre", { className: "instructions-text", text: shown(info.text), attrs: { "aria-label": "The instruction file's text, as the model would see it" } });
  const parts: HTMLElement[] = [facts, note, text];
  if (info.truncated === true)
    parts.push(el("p", { className: "warning instructions-truncated", text: `⚠ Longer than the budget: the model sees the first ${budget} tokens and a marker saying it was cut` }));
  return el("div", { className: "instructions" }, parts);
}

/** How a decided `instructions` approval reads (the answer, when the event names it). */
export function instructionsOutcome(decision: string, answer: unknown): string | undefined {
  if (answer === "never") return "Never (remembered)";
  if (answer === "not_this_time") return "Not this time";
  if (decision === "approve") return "Trusted";
  if (decision === "reject") return answer === undefined ? "Not trusted" : "Not this time";
  return undefined;
}
