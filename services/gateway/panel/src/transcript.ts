import type { AgentEvent } from "./api.js";
import { approvalCard, type ApprovalCard } from "./approval-card.js";
import { checkpointDiff } from "./checkpoint-compare.js";
import { byId, el } from "./dom.js";
import { proseOnly } from "./prose-only.js";
import { withoutImages } from "./remote-images.js";
import { escapeBadge, escapesIn, shown } from "./screen-text.js";
import { toolCard, type ToolCard } from "./tool-card.js";

/** Sets an entry's text (rendered) and marks it when characters in it are shown as tokens. */
function setEntryText(element: HTMLElement, text: string): void {
  const { text: rendered, links } = withoutImages(shown(text));
  element.textContent = rendered;
  const count = escapesIn(rendered);
  element.classList.toggle("has-escapes", count > 0);
  if (count > 0) element.append(" ", escapeBadge(count));
  for (const link of links) element.append("\n", link);
}

/** A model's first probe: what it does and how far it is (later runs read its cached profile). */
function probeLine(p: Record<string, any>): string {
  const seconds = Math.round(Number(p.elapsed_ms ?? 0) / 100) / 10;
  if (p.stage === "done") return `✓ Probed ${p.model} in ${seconds} s (cached for later runs)`;
  return `⧗ First use of ${p.model}: probing it (${String(p.stage).replace("_", " ")}) — ${Math.round(Number(p.percent ?? 0))} %, ${seconds} s`;
}

export interface TranscriptHooks {
  /** The set of pending approvals changed (one was asked for or decided). */
  onPendingChange(): void;
  /** A decision was sent from a card. */
  onDecided(): void;
}

/**
 * The transcript is the record of the session: model text (deltas of one request join one entry),
 * and each tool call as a card, in order, holding its approval — pending with the buttons, then
 * decided with who/what/when — its diff and its result. Every text is rendered for the screen and
 * marked when it hid characters.
 */
export function createTranscript(session: string, hooks: TranscriptHooks) {
  const list = byId<HTMLOListElement>("transcript");
  let textEntry: { requestId: string; element: HTMLElement; raw: string } | undefined;
  const cards = new Map<string, ToolCard>();
  const approvals = new Map<string, ApprovalCard>();
  const callOfApproval = new Map<string, ToolCard>();
  const pending: ApprovalCard[] = [];
  /** The latest checkpoint, and the calls that changed files with no diff shown, waiting for the checkpoint after them. */
  let lastCheckpoint: string | undefined;
  const awaitingAfter: Array<{ card: ToolCard; before: string }> = [];
  /** The line of a model's first probe, updated in place as its progress comes. */
  let probeEntry: HTMLElement | undefined;
  const add = (className: string, text: string) => {
    textEntry = undefined;
    const entry = el("li", { className });
    setEntryText(entry, text);
    list.append(entry);
    return entry;
  };
  const cardFor = (callId: string, tool: string) => {
    let card = cards.get(callId);
    if (!card) {
      textEntry = undefined;
      card = toolCard(callId, tool);
      cards.set(callId, card);
      list.append(card.element);
    }
    return card;
  };
  const requestApproval = (event: AgentEvent) => {
    const p = event.payload;
    const id = String(p.approval);
    if (approvals.has(id)) return;
    const card = approvalCard(session, p, hooks.onDecided);
    approvals.set(id, card);
    if (p.kind && p.kind !== "tool" && !p.call_id) {
      const entry = el("li", { className: "approval-entry" }, [card.element]);
      list.append(entry);
    } else {
      const toolCard = cardFor(String(p.call_id ?? id), String(p.tool ?? p.kind ?? "approval"));
      toolCard.attachApproval(card, p.args);
      callOfApproval.set(id, toolCard);
    }
    pending.push(card);
    hooks.onPendingChange();
  };
  return {
    /** Pending approvals, oldest first. */
    pending: () => pending.slice(),
    /** A pending approval announced on (re)connect (`approval.pending`), shown once. */
    addPending: requestApproval,
    add(event: AgentEvent) {
      const p = event.payload ?? {};
      switch (event.type) {
        case "run.created":
          return void add("meta run-start", `Task: ${p.task}${p.model ? `  ·  model ${p.model}` : ""}  ·  ${p.mode}`);
        case "message.received":
          return void add("meta message", `You: ${p.text}`);
        case "model.delta":
          if (textEntry === undefined || textEntry.requestId !== p.request_id) {
            const element = el("li", { className: "text" });
            list.append(element);
            textEntry = { requestId: p.request_id, element, raw: "" };
          }
          textEntry.raw += p.text;
          setEntryText(textEntry.element, proseOnly(textEntry.raw));
          return;
        case "model.probing": {
          const text = probeLine(p);
          if (probeEntry) setEntryText(probeEntry, text);
          else probeEntry = add("meta probe", text);
          probeEntry.setAttribute("data-stage", shown(p.stage));
          if (p.stage === "done") probeEntry = undefined;
          return;
        }
        case "instructions.loaded":
          // What the model was given from the workspace, and on whose say-so.
          for (const file of (p.files ?? []) as Array<{ path: string; tokens: number; truncated: boolean; source: string }>) {
            add(
              "instructions-loaded",
              `📄 Project instructions given to the model: ${file.path} (${file.tokens} tokens${file.truncated ? ", cut to the budget" : ""}; ${file.source === "trusted" ? "you trusted it" : `trusted by ${file.source}`})`,
            );
          }
          return;
        case "instructions.skipped":
          for (const file of (p.files ?? []) as Array<{ path: string; reason: string }>) {
            add(
              "meta instructions-skipped",
              `Project instructions not given to the model: ${file.path} (${file.reason === "never" ? "never trusted" : file.reason === "not_this_time" ? "not this time" : "ignored by the settings"})`,
            );
          }
          return;
        case "memory.loaded":
          // The person sees, before the model works with them, which notes this run was given and who wrote them.
          for (const memory of (p.memories ?? []) as Array<{ id: string; text: string; author: string; provenance?: { session: string; approved_by: string } }>) {
            const who =
              memory.author === "person"
                ? "your note"
                : `note an earlier agent run wrote${memory.provenance ? ` (session ${memory.provenance.session}, approved by ${memory.provenance.approved_by})` : ""}; unverified`;
            add("memory", `🗒 memory ${memory.id}, ${who}: ${memory.text}`);
          }
          return;
        case "tool.started":
          return cardFor(String(p.call_id), String(p.tool)).started(event);
        case "tool.completed": {
          const card = cardFor(String(p.call_id), String(p.tool));
          card.completed(event);
          const changed = Array.isArray(p.metadata?.files) && p.metadata.files.length > 0;
          if (!p.is_error && changed && lastCheckpoint && !card.hasDiff()) awaitingAfter.push({ card, before: lastCheckpoint });
          return;
        }
        case "approval.requested":
          return requestApproval(event);
        case "approval.decided": {
          const card = approvals.get(String(p.approval));
          if (card) {
            card.decided(event);
            callOfApproval.get(String(p.approval))?.decided(String(p.decision));
            const index = pending.indexOf(card);
            if (index >= 0) pending.splice(index, 1);
            hooks.onPendingChange();
          } else add("meta", `approval ${p.approval}: ${p.decision}`);
          return;
        }
        case "mode.changed":
          return void add("meta", `Mode switched to ${p.mode}`);
        case "plan.updated":
          return void add(
            "plan",
            (p.items ?? []).map((item: { step: string; status: string }) => `${item.status === "completed" ? "☑" : item.status === "in_progress" ? "▶" : "☐"} ${item.step}`).join("\n"),
          );
        case "completion.rejected":
          return void add("warn", `Completion not accepted yet: missing ${(p.missing ?? []).join(", ")}`);
        case "checkpoint.created": {
          const after = String(p.checkpoint);
          for (const { card, before } of awaitingAfter.splice(0)) card.offerDiff(before, after, () => checkpointDiff(session, before, after));
          lastCheckpoint = after;
          return void add("checkpoint", `● checkpoint ${after.slice(0, 10)} (${p.label})`);
        }
        case "checkpoint.failed":
          return void add("fail", `⚠ No checkpoint could be taken: ${p.error?.code}: ${p.error?.message}`);
        case "context.built":
          return p.compacted ? void add("meta", `Context compacted (${p.dropped} messages dropped, ${p.messages} kept)`) : undefined;
        case "agent.spawned":
          return void add("meta", `↳ sub-agent ${p.role} (${p.write ? "may write" : "read-only"}): ${p.task}`);
        case "agent.completed":
          return void add(p.state === "done" ? "ok" : "fail", `↲ sub-agent ${p.state}: ${p.result}`);
        case "checkpoint.restored":
          return void add("checkpoint", `↺ restored ${String(p.checkpoint).slice(0, 10)}`);
        case "run.completed":
          return void add("done", `${p.state === "done" ? "✔ Done" : "⚠ Unverified"}: ${p.result} — files: ${(p.files_changed ?? []).join(", ") || "none"}`);
        case "run.failed":
          return void add("fail", `✘ Failed: ${p.error?.code}: ${p.error?.message}`);
        case "run.cancelled":
          return void add("fail", `✘ Cancelled: ${p.reason}`);
        default:
          return;
      }
    },
  };
}
export type Transcript = ReturnType<typeof createTranscript>;
