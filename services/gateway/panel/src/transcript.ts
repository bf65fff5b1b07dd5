import type { AgentEvent } from "./api.js";
import { byId, el } from "./dom.js";
import { proseOnly } from "./prose-only.js";
import { escapeBadge, escapesIn, shown } from "./screen-text.js";

/** Sets an entry's text (rendered) and marks it when characters in it are shown as tokens. */
function setEntryText(element: HTMLElement, text: string): void {
  const rendered = shown(text);
  element.textContent = rendered;
  const count = escapesIn(rendered);
  element.classList.toggle("has-escapes", count > 0);
  if (count > 0) element.append(" ", escapeBadge(count));
}

/**
 * Appends one event to the transcript; model text deltas of one request join one entry. Every
 * text is rendered for the screen and marked when it hid characters.
 */
export function createTranscript() {
  const list = byId<HTMLOListElement>("transcript");
  let textEntry: { requestId: string; element: HTMLElement; raw: string } | undefined;
  const add = (className: string, text: string) => {
    textEntry = undefined;
    const entry = el("li", { className });
    setEntryText(entry, text);
    list.append(entry);
  };
  return {
    clear() {
      list.replaceChildren();
      textEntry = undefined;
    },
    add(event: AgentEvent) {
      const p = event.payload ?? {};
      switch (event.type) {
        case "run.created":
          return add("meta", `Task: ${p.task}`);
        case "model.delta":
          if (textEntry === undefined || textEntry.requestId !== p.request_id) {
            const element = el("li", { className: "text" });
            list.append(element);
            textEntry = { requestId: p.request_id, element, raw: "" };
          }
          textEntry.raw += p.text;
          setEntryText(textEntry.element, proseOnly(textEntry.raw));
          return;
        case "memory.loaded":
          // The person sees, before the model works with them, which notes this run was given and who wrote them.
          for (const memory of (p.memories ?? []) as Array<{ id: string; text: string; author: string; provenance?: { session: string; approved_by: string } }>) {
            const who = memory.author === "person" ? "your note" : `note an earlier agent run wrote${memory.provenance ? ` (session ${memory.provenance.session}, approved by ${memory.provenance.approved_by})` : ""}; unverified`;
            add("memory", `🗒 memory ${memory.id}, ${who}: ${memory.text}`);
          }
          return;
        case "tool.started":
          return add("tool", `▸ ${p.tool} ${JSON.stringify(p.args).slice(0, 200)}`);
        case "tool.completed":
          return add(p.is_error ? "fail" : "ok", `${p.is_error ? "✗" : "✓"} ${p.summary}`);
        case "approval.decided":
          return add("meta", `approval ${p.approval}: ${p.decision}${p.network === true ? " with network" : p.network === false ? " without network" : ""}`);
        case "checkpoint.created":
          return add("checkpoint", `● checkpoint ${String(p.checkpoint).slice(0, 10)} (${p.label})`);
        case "checkpoint.restored":
          return add("checkpoint", `↺ restored ${String(p.checkpoint).slice(0, 10)}`);
        case "run.completed":
          return add("done", `${p.state === "done" ? "✔ Done" : "⚠ Unverified"}: ${p.result} — files: ${(p.files_changed ?? []).join(", ") || "none"}`);
        case "run.failed":
          return add("fail", `✘ Failed: ${p.error?.code}: ${p.error?.message}`);
        case "run.cancelled":
          return add("fail", `✘ Cancelled: ${p.reason}`);
        default:
          return;
      }
    },
  };
}
