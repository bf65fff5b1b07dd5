import { api, ApiError } from "./api.js";
import { el } from "./dom.js";
import { escapeBadge, escapesIn, shown } from "./screen-text.js";

/** A unified diff as lines with added/removed classes (text only). */
export function renderDiff(diff: string): HTMLElement {
  const lines = diff.split("\n").map((line) => {
    const kind = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "ctx";
    return el("div", { className: kind, text: line });
  });
  return el("pre", { className: "diff" }, lines);
}

type Decision = "approve" | "approve-network" | "reject" | "abort";

/**
 * The card for one pending approval: what would happen, loud warnings, and the decision buttons.
 * Only screen renderings are shown (the orchestrator's `*_rendered`, rendered again here); a card
 * that shows any character as a token is marked (`has-escapes`, a warning line). A command the
 * policy marked `consent_required` has two approve buttons, without and with network; a plain
 * approve never grants network.
 */
export function approvalCard(session: string, payload: Record<string, any>, onDecided: () => void): HTMLElement {
  const card = el("div", { className: "approval-card", attrs: { "data-approval": String(payload.approval) } });
  const error = el("p", { className: "error" });
  const paths = ((payload.paths_rendered ?? payload.paths ?? []) as unknown[]).map(shown);
  const command = payload.command_rendered !== undefined || payload.command !== undefined ? shown(payload.command_rendered ?? payload.command) : undefined;
  const diff = payload.diff_rendered !== undefined || payload.diff !== undefined ? shown(payload.diff_rendered ?? payload.diff) : undefined;
  const hint = payload.model_hint !== undefined ? shown(payload.model_hint) : undefined;
  const tool = shown(payload.tool);
  const escapes = Math.max(Number(payload.escapes?.count ?? 0), escapesIn([tool, ...paths, command ?? "", diff ?? "", hint ?? "", ...((payload.scripts ?? []) as Array<{ text: unknown }>).map((script) => shown(script.text))].join("\n")));
  card.append(el("h3", { text: `Approve ${tool}${paths.length ? ": " + paths.join(", ") : ""}?` }));
  if (escapes > 0) {
    card.classList.add("has-escapes");
    card.setAttribute("data-escapes", String(escapes));
    card.append(el("div", { className: "warning escapes" }, [escapeBadge(escapes, payload.escapes?.kinds ?? {})]));
  }
  for (const flag of payload.protected ?? []) {
    card.append(el("div", { className: "warning protected", text: `⚠ PROTECTED PATH ${shown(flag.path)}: ${shown(flag.reason)}` }));
  }
  for (const flag of (payload.invisible ?? []).slice(0, 20)) {
    const where = `${flag.path === undefined ? "the command" : shown(flag.path)}${flag.line ? ` line ${flag.line}` : ""}`;
    card.append(el("div", { className: "warning invisible", text: `⚠ INVISIBLE CHARACTER ${shown(flag.codepoint)} (${shown(flag.kind)}) in ${where}` }));
  }
  if (payload.checkpoint_failed) card.append(el("div", { className: "warning checkpoint", text: `⚠ No checkpoint could be taken: ${shown(payload.checkpoint_failed.message)} (${shown(payload.checkpoint_failed.code)})` }));
  const network = payload.network === "consent_required";
  if (network) card.append(el("div", { className: "warning network", text: "⚠ This command may use the network: approve it without or with network access" }));
  if (command !== undefined) card.append(el("div", { className: "command", text: "$ " + command }));
  for (const script of payload.scripts ?? []) card.append(el("div", { className: "script", text: `runs ${shown(script.name)} from ${shown(script.source)}:` }), el("pre", { className: "command", text: shown(script.text) }));
  if (diff !== undefined) card.append(renderDiff(diff));
  if (hint !== undefined) card.append(el("p", { className: "hint", text: `Model's note (not an authorization): ${hint}` }));
  const feedback = el("textarea", { attrs: { rows: "2", placeholder: "Feedback for the model (when rejecting)" } });
  const confirmProtected = el("input", { attrs: { type: "checkbox" } });
  const proceedWithout = el("input", { attrs: { type: "checkbox" } });
  const decide = async (choice: Decision) => {
    const decision = choice === "approve-network" ? "approve" : choice;
    const body: Record<string, unknown> = { session, approval: payload.approval, decision };
    if (decision === "reject" && feedback.value.trim()) body.feedback = feedback.value.trim();
    if ((payload.protected ?? []).length > 0) body.confirm_protected = confirmProtected.checked;
    if (network && decision === "approve") body.consent_network = choice === "approve-network";
    if (payload.checkpoint_failed && decision === "approve") body.checkpoint = proceedWithout.checked ? "proceed_without" : "retry";
    try {
      await api("POST", "/api/agent/decision", body);
      card.remove();
      onDecided();
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "APPROVAL_NOT_FOUND") card.remove();
      else error.textContent = shown(`${(caught as ApiError).code}: ${(caught as Error).message}`);
    }
  };
  const button = (choice: Decision, text: string, className = "") =>
    el("button", { className, text, attrs: { type: "button", "data-action": choice }, onClick: () => void decide(choice) });
  const actions = el("div", { className: "actions" }, [
    button("approve", network ? "Approve without network" : "Approve", "primary"),
    ...(network ? [button("approve-network", "Approve with network")] : []),
    button("reject", "Reject"),
    button("abort", "Abort run", "danger"),
  ]);
  if ((payload.protected ?? []).length > 0) actions.append(el("label", {}, [confirmProtected, " I understand this touches a protected path"]));
  if (payload.checkpoint_failed) actions.append(el("label", {}, [proceedWithout, " Proceed without a checkpoint (Approve otherwise retries it)"]));
  card.append(feedback, actions, error);
  return card;
}
