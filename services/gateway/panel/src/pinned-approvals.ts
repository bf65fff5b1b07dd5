import type { ApprovalCard } from "./approval-card.js";
import { byId, el } from "./dom.js";
import { instructionsAnswers } from "./instructions-card.js";

/**
 * The pending approvals pinned where the person is looking (a sticky bar at the top of the work
 * area): the oldest one's question with its buttons (the same decision as the card in the
 * transcript), how many more wait, and a link to the card with its diff.
 */
export function renderPinned(pending: ApprovalCard[]): void {
  const bar = byId("pinned");
  const first = pending[0];
  bar.hidden = first === undefined;
  if (!first) return bar.replaceChildren();
  const network = first.element.querySelector('[data-action="approve-network"]') !== null;
  const button = (action: string, text: string, key: string, className: string, run: () => void) =>
    el("button", { className, text: `${text} (${key})`, attrs: { type: "button", "data-action": action, "aria-keyshortcuts": key }, onClick: run });
  if (first.kind === "instructions") {
    bar.replaceChildren(
      el("span", { className: "pinned-title", text: first.title, attrs: { "data-approval": first.approval } }),
      el("span", { className: "pinned-actions" }, [
        ...instructionsAnswers.map((option) => button(option.action, option.text, option.key, option.className, () => void first.decide(option.action))),
        button("review", "Review", "V", "", () => review(first)),
      ]),
      ...(pending.length > 1 ? [el("span", { className: "pinned-more", text: `+${pending.length - 1} more waiting` })] : []),
    );
    return;
  }
  bar.replaceChildren(
    el("span", { className: "pinned-title", text: first.title, attrs: { "data-approval": first.approval } }),
    el("span", { className: "pinned-actions" }, [
      button("approve", network ? "Approve without network" : "Approve", "A", "primary", () => void first.decide("approve")),
      ...(network ? [button("approve-network", "With network", "N", "", () => void first.decide("approve-network"))] : []),
      button("reject", "Reject…", "R", "", () => reviewFeedback(first)),
      button("abort", "Abort", "Shift+X", "danger", () => void first.decide("abort")),
      button("review", "Review", "V", "", () => review(first)),
    ]),
    ...(pending.length > 1 ? [el("span", { className: "pinned-more", text: `+${pending.length - 1} more waiting` })] : []),
  );
}

export function review(card: ApprovalCard): void {
  card.element.scrollIntoView({ block: "center" });
  card.element.querySelector<HTMLButtonElement>('[data-action="approve"]')?.focus({ preventScroll: true });
}

export function reviewFeedback(card: ApprovalCard): void {
  card.element.scrollIntoView({ block: "center" });
  card.focusFeedback();
}
