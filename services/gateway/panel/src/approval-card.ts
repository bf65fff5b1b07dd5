import { api, ApiError } from "./api.js";
import { el } from "./dom.js";

/** A unified diff as lines with added/removed classes (text only). */
export function renderDiff(diff: string): HTMLElement {
  const lines = diff.split("\n").map((line) => {
    const kind = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "ctx";
    return el("div", { className: kind, text: line });
  });
  return el("pre", { className: "diff" }, lines);
}

const invisiblePattern = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const reveal = (text: string) => text.replace(invisiblePattern, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase()}>`);

/** The card for one pending approval: what would happen, loud warnings, and the decision buttons. */
export function approvalCard(session: string, payload: Record<string, any>, onDecided: () => void): HTMLElement {
  const card = el("div", { className: "approval-card", attrs: { "data-approval": String(payload.approval) } });
  const error = el("p", { className: "error" });
  card.append(el("h3", { text: `Approve ${payload.tool}${payload.paths?.length ? ": " + payload.paths.join(", ") : ""}?` }));
  for (const flag of payload.protected ?? []) {
    card.append(el("div", { className: "warning protected", text: `⚠ PROTECTED PATH ${flag.path}: ${flag.reason}` }));
  }
  for (const flag of (payload.invisible ?? []).slice(0, 20)) {
    const where = `${flag.path ?? "the command"}${flag.line ? ` line ${flag.line}` : ""}`;
    card.append(el("div", { className: "warning invisible", text: `⚠ INVISIBLE CHARACTER ${flag.codepoint} (${flag.kind}) in ${where}` }));
  }
  if (payload.checkpoint_failed) card.append(el("div", { className: "warning checkpoint", text: `⚠ No checkpoint could be taken: ${payload.checkpoint_failed.message} (${payload.checkpoint_failed.code})` }));
  if (payload.network === "consent_required") card.append(el("div", { className: "warning network", text: "⚠ This command may use the network" }));
  if (payload.command) card.append(el("div", { className: "command", text: "$ " + reveal(String(payload.command)) }));
  for (const script of payload.scripts ?? []) card.append(el("div", { className: "script", text: `runs ${script.name} from ${script.source}:` }), el("pre", { className: "command", text: reveal(String(script.text)) }));
  if (payload.diff) card.append(renderDiff(reveal(String(payload.diff))));
  if (payload.model_hint) card.append(el("p", { className: "hint", text: `Model's note (not an authorization): ${payload.model_hint}` }));
  const feedback = el("textarea", { attrs: { rows: "2", placeholder: "Feedback for the model (when rejecting)" } });
  const confirmProtected = el("input", { attrs: { type: "checkbox" } });
  const proceedWithout = el("input", { attrs: { type: "checkbox" } });
  const decide = async (decision: "approve" | "reject" | "abort") => {
    const body: Record<string, unknown> = { session, approval: payload.approval, decision };
    if (decision === "reject" && feedback.value.trim()) body.feedback = feedback.value.trim();
    if ((payload.protected ?? []).length > 0) body.confirm_protected = confirmProtected.checked;
    if (payload.network === "consent_required") body.consent_network = decision === "approve";
    if (payload.checkpoint_failed && decision === "approve") body.checkpoint = proceedWithout.checked ? "proceed_without" : "retry";
    try {
      await api("POST", "/api/agent/decision", body);
      card.remove();
      onDecided();
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "APPROVAL_NOT_FOUND") card.remove();
      else error.textContent = `${(caught as ApiError).code}: ${(caught as Error).message}`;
    }
  };
  const actions = el("div", { className: "actions" }, [
    el("button", { className: "primary", text: "Approve", attrs: { type: "button", "data-action": "approve" }, onClick: () => void decide("approve") }),
    el("button", { text: "Reject", attrs: { type: "button", "data-action": "reject" }, onClick: () => void decide("reject") }),
    el("button", { className: "danger", text: "Abort run", attrs: { type: "button", "data-action": "abort" }, onClick: () => void decide("abort") }),
  ]);
  if ((payload.protected ?? []).length > 0) actions.append(el("label", {}, [confirmProtected, " I understand this touches a protected path"]));
  if (payload.checkpoint_failed) actions.append(el("label", {}, [proceedWithout, " Proceed without a checkpoint (Approve otherwise retries it)"]));
  card.append(feedback, actions, error);
  return card;
}
