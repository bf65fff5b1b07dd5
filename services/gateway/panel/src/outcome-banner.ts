import type { AgentEvent } from "./api.js";
import { byId, el } from "./dom.js";
import { shown } from "./screen-text.js";

/**
 * A finished run's outcome, at the top of the session where it cannot be missed: `done` (green),
 * `unverified` (amber, with what was missing) or failed / cancelled (red, with code and message),
 * and the evidence and files changed the run reported.
 */
export function createOutcomeBanner() {
  const banner = byId<HTMLDivElement>("outcome");
  let missing: string[] = [];
  const show = (kind: string, title: string, children: HTMLElement[]) => {
    banner.hidden = false;
    banner.className = `outcome ${kind}`;
    banner.setAttribute("data-outcome", kind);
    banner.replaceChildren(el("h2", { className: "outcome-title", text: title }), ...children);
  };
  const list = (label: string, items: unknown[]) =>
    el("div", { className: "outcome-list" }, [
      el("strong", { text: label }),
      items.length
        ? el(
            "ul",
            {},
            items.map((item) => el("li", { text: shown(item) })),
          )
        : el("span", { text: " none" }),
    ]);
  return {
    clear() {
      banner.hidden = true;
      banner.replaceChildren();
      missing = [];
    },
    add(event: AgentEvent) {
      const p = event.payload;
      if (event.type === "run.created") {
        banner.hidden = true;
        missing = [];
      } else if (event.type === "completion.unverified") missing = (p.missing ?? []).map(shown);
      else if (event.type === "run.completed") {
        const done = p.state === "done";
        show(done ? "done" : "unverified", done ? `✔ Done: ${shown(p.result)}` : `⚠ Unverified: ${shown(p.result)}`, [
          ...(done || missing.length === 0 ? [] : [list("Not verified", missing)]),
          list("Evidence", p.evidence ?? []),
          list("Files changed", p.files_changed ?? []),
          el("p", { className: "meta", text: `${p.iterations ?? 0} iterations · ${p.commands_run ?? 0} commands` }),
        ]);
      } else if (event.type === "run.failed") {
        show("failed", `✘ Failed: ${shown(p.error?.code)}`, [el("p", { className: "outcome-message", text: shown(p.error?.message) })]);
      } else if (event.type === "run.cancelled") {
        show("cancelled", "✘ Cancelled", [el("p", { className: "outcome-message", text: shown(p.reason) })]);
      }
    },
  };
}
