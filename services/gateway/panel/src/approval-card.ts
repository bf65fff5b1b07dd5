import { api, ApiError, type AgentEvent } from "./api.js";
import { diffView } from "./diff-view.js";
import { el } from "./dom.js";
import { mcpHiddenCharactersWarning } from "./render-untrusted.js";
import { instructionsAnswers, instructionsBody, instructionsOutcome, instructionsTitle } from "./instructions-card.js";
import { escapeBadge, escapesIn, shown } from "./screen-text.js";

/** `never` only on an `instructions` approval: reject, remembered (`instructions_answer: "never"`). */
export type Decision = "approve" | "approve-network" | "reject" | "abort" | "never";

export interface ApprovalCard {
  element: HTMLElement;
  approval: string;
  /** The approval's kind (`tool` when the event names none): `instructions` cards answer Trust / Not this time / Never. */
  kind: string;
  /** One line for the pinned bar: what would happen. */
  title: string;
  decide(choice: Decision): Promise<void>;
  /** Moves focus to the feedback box (reject with feedback: type, then Enter). */
  focusFeedback(): void;
  /** The decision arrived (`approval.decided`): the buttons give way to who decided what, when. */
  decided(event: AgentEvent): void;
}

const decisionText: Record<string, string> = {
  approve: "Approved",
  reject: "Rejected",
  abort: "Aborted the run",
  timeout: "Timed out (denied)",
  auto: "Auto-approved by a rule",
};

/**
 * The approval of one tool call: what would happen, loud warnings, the diff, and — while pending —
 * the decision buttons. Only screen renderings are shown (the event's fields, which the
 * orchestrator rendered, rendered again here; `raw_base64` never); a card that shows any character as a token is marked (`has-escapes`, a warning
 * line). A command the policy marked `consent_required` has two approve buttons, without and with
 * network; a plain approve never grants network. Once decided the card stays, with its diff, as
 * the record of what was approved.
 */
export function approvalCard(session: string, payload: Record<string, any>, onDecided: () => void): ApprovalCard {
  const approval = String(payload.approval);
  const card = el("div", { className: "approval-card pending", attrs: { "data-approval": approval, role: "group" } });
  const error = el("p", { className: "error", attrs: { role: "alert" } });
  const paths = ((payload.paths ?? []) as unknown[]).map(shown);
  const command = payload.command !== undefined ? shown(payload.command) : undefined;
  const diff = payload.diff !== undefined ? shown(payload.diff) : undefined;
  const hint = payload.model_hint !== undefined ? shown(payload.model_hint) : undefined;
  const tool = shown(payload.tool);
  const kind = String(payload.kind ?? "tool");
  const instructions = kind === "instructions" ? ((payload.instructions ?? {}) as Record<string, unknown>) : undefined;
  const escapes = Math.max(
    Number(payload.escapes?.count ?? 0),
    escapesIn(
      [
        tool,
        ...paths,
        command ?? "",
        diff ?? "",
        hint ?? "",
        instructions ? shown(instructions.text) : "",
        ...((payload.scripts ?? []) as Array<{ text: unknown }>).map((script) => shown(script.text)),
      ].join("\n"),
    ),
  );
  // A command's working folder (".") says nothing; a file name (maybe with hidden characters) does.
  const namedPaths = paths.filter((path) => path !== "." && path !== "");
  const title = instructions
    ? instructionsTitle(instructions, paths)
    : payload.kind === "mode_switch"
      ? "Approve switching to Act mode (the model may then change files and run commands, each still asked)?"
      : payload.kind === "memory" && payload.memory
        ? `Approve ${payload.memory.action === "forget" ? "forgetting" : "remembering"} a memory (given to later runs)?`
        : `Approve ${tool}${command !== undefined ? ": " + command.split("\n")[0].slice(0, 80) : ""}${namedPaths.length ? (command !== undefined ? " — " : ": ") + namedPaths.join(", ") : ""}?`;
  const heading = el("h3", { text: title, attrs: { id: `approval-${approval}-title` } });
  card.setAttribute("aria-labelledby", heading.id);
  card.append(heading);
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
  if (payload.mcp?.hidden_characters)
    card.append(el("div", { className: "warning mcp-hidden", text: `MCP SERVER ${shown(payload.mcp.server)}: ${mcpHiddenCharactersWarning(Number(payload.mcp.hidden_characters))}` }));
  if (payload.checkpoint_failed)
    card.append(el("div", { className: "warning checkpoint", text: `⚠ No checkpoint could be taken: ${shown(payload.checkpoint_failed.message)} (${shown(payload.checkpoint_failed.code)})` }));
  const network = payload.network === "consent_required";
  if (network) card.append(el("div", { className: "warning network", text: "⚠ This command may use the network: approve it without or with network access" }));
  if (command !== undefined) card.append(el("div", { className: "command", text: "$ " + command }));
  for (const script of payload.scripts ?? [])
    card.append(el("div", { className: "script", text: `runs ${shown(script.name)} from ${shown(script.source)}:` }), el("pre", { className: "command", text: shown(script.text) }));
  if (instructions) card.append(instructionsBody(instructions));
  if (payload.memory) card.append(el("pre", { className: "memory-text", text: `${shown(payload.memory.action)}: ${shown(payload.memory.text)}` }));
  if (diff !== undefined) card.append(diffView(diff, { protectedPaths: ((payload.protected ?? []) as Array<{ path: unknown }>).map((flag) => shown(flag.path)) }));
  if (hint !== undefined) card.append(el("p", { className: "hint", text: `Model's note (not an authorization): ${hint}` }));
  const feedback = el("textarea", {
    attrs: { rows: "2", placeholder: "Feedback for the model (Enter rejects with it; Shift+Enter: new line)", "aria-label": "Feedback for the model when rejecting" },
  });
  const confirmProtected = el("input", { attrs: { type: "checkbox" } });
  const proceedWithout = el("input", { attrs: { type: "checkbox" } });
  let settled = false;
  /** The instructions answer this card sent (the decided event may not repeat it). */
  let sentAnswer: string | undefined;
  const decide = async (choice: Decision) => {
    if (settled) return;
    const answer = instructions ? instructionsAnswers.find((option) => option.action === choice) : undefined;
    // Only an instructions card has Never; elsewhere the key does nothing.
    if (choice === "never" && !answer) return;
    const decision = answer?.decision ?? (choice === "approve-network" ? "approve" : choice);
    const body: Record<string, unknown> = { session, approval: payload.approval, decision };
    if (answer) body.instructions_answer = answer.answer;
    if (decision === "reject" && feedback.value.trim()) body.feedback = feedback.value.trim();
    if ((payload.protected ?? []).length > 0) body.confirm_protected = confirmProtected.checked;
    if (network && decision === "approve") body.consent_network = choice === "approve-network";
    if (payload.checkpoint_failed && decision === "approve") body.checkpoint = proceedWithout.checked ? "proceed_without" : "retry";
    error.textContent = "";
    // Known before the POST: the decision's event can arrive over the socket before its reply,
    // and the card must then word the answer that was sent, not a plain "Not trusted".
    if (answer) sentAnswer = answer.answer;
    try {
      await api("POST", "/api/agent/decision", body);
      card.classList.add("sent");
      onDecided();
    } catch (caught) {
      sentAnswer = undefined;
      if (caught instanceof ApiError && caught.code === "APPROVAL_NOT_FOUND") markGone();
      else error.textContent = shown(`${(caught as ApiError).code}: ${(caught as Error).message}`);
    }
  };
  feedback.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      void decide("reject");
    }
  });
  const button = (choice: Decision, text: string, key: string, className = "") =>
    el("button", { className, text, attrs: { type: "button", "data-action": choice, "aria-keyshortcuts": key, title: `Shortcut: ${key}` }, onClick: () => void decide(choice) });
  const actions = el(
    "div",
    { className: "actions" },
    instructions
      ? instructionsAnswers.map((option) => button(option.action, option.text, option.key, option.className))
      : [
          button("approve", network ? "Approve without network" : "Approve", "A", "primary"),
          ...(network ? [button("approve-network", "Approve with network", "N")] : []),
          button("reject", "Reject", "R"),
          button("abort", "Abort run", "Shift+X", "danger"),
        ],
  );
  if ((payload.protected ?? []).length > 0) actions.append(el("label", {}, [confirmProtected, " I understand this touches a protected path"]));
  if (payload.checkpoint_failed) actions.append(el("label", {}, [proceedWithout, " Proceed without a checkpoint (Approve otherwise retries it)"]));
  // An instruction file is trusted or not: there is nothing to tell the model, so no feedback box.
  const controls = el("div", { className: "controls" }, instructions ? [actions] : [feedback, actions]);
  card.append(controls, error);
  const settle = (line: HTMLElement) => {
    settled = true;
    card.classList.remove("pending", "sent");
    card.classList.add("decided");
    heading.textContent = instructions ? title.replace(/^Trust /, "Asked to trust ") : title.replace(/^Approve /, "Asked to approve ");
    controls.remove();
    card.append(line);
    onDecided();
  };
  function markGone() {
    if (!settled) settle(el("p", { className: "decision", text: "No longer pending (decided elsewhere or expired)." }));
  }
  return {
    element: card,
    approval,
    kind,
    title,
    decide,
    focusFeedback: () => (instructions ? actions.querySelector<HTMLButtonElement>('[data-action="reject"]')?.focus() : feedback.focus()),
    decided(event) {
      if (settled) return;
      const p = event.payload;
      const decision = String(p.decision);
      const when = String(event.ts ?? "").slice(11, 19);
      const who = decision === "auto" || decision === "timeout" ? "" : ` by ${shown(event.user ?? "local")}`;
      const network = p.network === true ? " with network" : p.network === false ? " without network" : "";
      const checkpoint = p.checkpoint === "proceed_without" ? " (without a checkpoint)" : "";
      card.setAttribute("data-decision", decision);
      const said = (instructions ? instructionsOutcome(decision, p.instructions_answer ?? sentAnswer) : undefined) ?? decisionText[decision] ?? shown(decision);
      const line = el("p", { className: `decision ${decision}`, text: `${said}${network}${checkpoint}${who}${when ? ` at ${when}` : ""}` });
      if (p.feedback !== undefined) line.append(el("span", { className: "feedback", text: ` — feedback: “${shown(p.feedback)}”` }));
      settle(line);
    },
  };
}
