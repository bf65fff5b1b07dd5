import type { ApprovalCard } from "./approval-card.js";
import { byId, el } from "./dom.js";
import { review, reviewFeedback } from "./pinned-approvals.js";

/** The keys, as the help dialog lists them. */
export const shortcuts: Array<[string, string]> = [
  ["A", "Approve the oldest pending approval (the pinned one)"],
  ["N", "Approve it with network (commands that ask for network)"],
  ["R", "Reject it: focuses its feedback box; type, then Enter sends the rejection (Shift+Enter: new line)"],
  ["Shift+N", "Never trust it (a project-instructions file: remembered)"],
  ["Shift+X", "Abort the run (at a pending approval: the abort decision)"],
  ["V", "Scroll to the pending approval's card and focus its buttons"],
  ["J / K", "Next / previous tool card"],
  ["/", "Focus the session filter"],
  ["?", "Show this help"],
  ["Esc", "Close the help, leave a text box"],
];

const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

/**
 * Keyboard access to the decisions: single keys outside text boxes (listed in the help dialog);
 * every control is also a real button reachable with Tab.
 */
export function installKeyboard(options: { pending(): ApprovalCard[]; abort(): void }): void {
  const help = byId<HTMLDialogElement>("help");
  byId("help-keys").replaceChildren(...shortcuts.flatMap(([key, what]) => [el("dt", {}, [el("kbd", { text: key })]), el("dd", { text: what })]));
  byId("help-open").addEventListener("click", () => help.showModal());
  byId("help-close").addEventListener("click", () => help.close());
  const moveCard = (step: number) => {
    const cards = [...document.querySelectorAll<HTMLElement>(".tool-card")];
    if (cards.length === 0) return;
    const index = cards.findIndex((card) => card.contains(document.activeElement));
    const next = cards[Math.max(0, Math.min(cards.length - 1, index < 0 ? (step > 0 ? 0 : cards.length - 1) : index + step))];
    next.tabIndex = -1;
    next.focus();
  };
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && typing(event.target)) return (event.target as HTMLElement).blur();
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey || help.open) return;
    const first = options.pending()[0];
    const key = event.key;
    const act = (run: () => void) => {
      event.preventDefault();
      run();
    };
    if (key === "?") return act(() => help.showModal());
    if (key === "/") return act(() => byId("filter-text").focus());
    if (key === "j" || key === "J") return act(() => moveCard(1));
    if (key === "k" || key === "K") return act(() => moveCard(-1));
    if (key === "X" && event.shiftKey) return act(() => (first ? void first.decide("abort") : options.abort()));
    if (!first) return;
    if (key === "a") return act(() => void first.decide("approve"));
    if (key === "n" && first.element.querySelector('[data-action="approve-network"]')) return act(() => void first.decide("approve-network"));
    if (key === "N" && event.shiftKey && first.kind === "instructions") return act(() => void first.decide("never"));
    if (key === "r") return act(() => reviewFeedback(first));
    if (key === "v") return act(() => review(first));
  });
}
