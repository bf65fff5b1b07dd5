import type { AgentEvent } from "./api.js";
import type { ApprovalCard } from "./approval-card.js";
import { el } from "./dom.js";
import { escapeBadge, escapesIn, shown } from "./screen-text.js";

export interface ToolCard {
  element: HTMLElement;
  started(event: AgentEvent): void;
  attachApproval(card: ApprovalCard, args: unknown): void;
  completed(event: AgentEvent): void;
  /** Its approval was decided: a call that will not run says so (until a result says otherwise). */
  decided(decision: string): void;
  /** Whether the card already shows the call's diff (its approval had one). */
  hasDiff(): boolean;
  /**
   * A call that changed files without a diff on screen (auto-approved): offers the diff between
   * the checkpoints around it, fetched on demand (`load`).
   */
  offerDiff(from: string, to: string, load: () => Promise<HTMLElement>): void;
}

/** A write body or patch the bus replaced by its size and digest. */
function digest(value: unknown): string | undefined {
  const v = value as { bytes?: unknown; sha256?: unknown } | null;
  return v && typeof v === "object" && typeof v.bytes === "number" && typeof v.sha256 === "string" ? `(${v.bytes} bytes, sha256 ${v.sha256.slice(0, 12)}…)` : undefined;
}

/** Arguments as `name: value` lines, rendered for the screen (bodies are already digests on the bus). */
function argumentLines(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : (digest(value) ?? JSON.stringify(value))}`)
    .join("\n");
}

/**
 * New problems the edit's diagnostics found (`metadata.diagnostics`: `{ source, new_problems, files:
 * { path: count }, problems?: [{ path, line, column, code, message }], type_checked?, unavailable_reason? }`).
 */
function problemsOf(metadata: Record<string, any>): HTMLElement | undefined {
  const diagnostics = (metadata.diagnostics ?? (metadata.new_problems !== undefined ? metadata : undefined)) as Record<string, any> | undefined;
  if (!diagnostics || typeof diagnostics.new_problems !== "number") return undefined;
  const total = diagnostics.new_problems;
  const files = Object.entries((diagnostics.files ?? {}) as Record<string, unknown>);
  const box = el("div", { className: `problems ${total > 0 ? "some" : "none"}`, attrs: { "data-new-problems": String(total) } }, [
    el("strong", {
      text:
        total > 0
          ? `⚠ ${total} new problem${total === 1 ? "" : "s"}${diagnostics.source ? ` (${shown(diagnostics.source)})` : ""}`
          : `✓ No new problems${diagnostics.source ? ` (${shown(diagnostics.source)})` : ""}`,
    }),
  ]);
  // The problems themselves when the tools service lists them (at most 10), else the count per file.
  const listed = (Array.isArray(diagnostics.problems) ? diagnostics.problems : []) as Array<Record<string, unknown>>;
  if (listed.length > 0) {
    box.append(
      el(
        "ul",
        {},
        listed.map((problem) => el("li", { text: `${shown(problem.path)}:${shown(problem.line)}:${shown(problem.column)} ${shown(problem.code)} ${shown(problem.message)}` })),
      ),
    );
    if (total > listed.length) box.append(el("p", { text: `… ${total - listed.length} more` }));
  } else if (files.length > 0)
    box.append(
      el(
        "ul",
        {},
        files.map(([path, count]) => el("li", { text: `${shown(path)}: ${shown(count)}` })),
      ),
    );
  if (diagnostics.type_checked === false)
    box.append(el("p", { text: `Syntax check only: no type checker ran${diagnostics.unavailable_reason ? ` (${shown(diagnostics.unavailable_reason)})` : ""}.` }));
  if (diagnostics.pending) box.append(el("p", { text: "Diagnostics were not ready yet." }));
  if (diagnostics.unavailable) box.append(el("p", { text: "Diagnostics unavailable." }));
  return box;
}

/**
 * One tool call in the transcript, in order: its arguments, its approval (pending: the decision
 * buttons; decided: who decided what, when, with the feedback), its diff (inside the approval),
 * and its result (collapsible, rendered text), with the new problems diagnostics found.
 */
export function toolCard(callId: string, tool: string): ToolCard {
  const status = el("span", { className: "tool-status", text: "running" });
  const head = el("div", { className: "tool-head" }, [el("span", { className: "tool-name", text: `▸ ${shown(tool)}` }), " ", status]);
  const args = el("pre", { className: "tool-args" });
  const approvalSlot = el("div", { className: "tool-approval" });
  const resultSlot = el("div", { className: "tool-result" });
  const diffSlot = el("div", { className: "tool-diff" });
  const element = el("li", { className: "tool-card", attrs: { "data-call": callId, "data-tool": tool } }, [head, args, approvalSlot, diffSlot, resultSlot]);
  const setArgs = (value: unknown) => {
    if (!value || typeof value !== "object" || Object.keys(value).length === 0) return;
    const text = shown(argumentLines(value as Record<string, unknown>));
    args.textContent = text;
    if (escapesIn(text) > 0) args.append(" ", escapeBadge(escapesIn(text)));
  };
  return {
    element,
    hasDiff: () => approvalSlot.querySelector(".diff-view, .diff") !== null || diffSlot.childElementCount > 0,
    offerDiff(from, to, load) {
      if (diffSlot.childElementCount > 0) return;
      const status = el("span", { className: "meta" });
      const button = el("button", {
        text: `Show the changes (checkpoint ${from.slice(0, 8)} → ${to.slice(0, 8)})`,
        attrs: { type: "button", "data-action": "call-diff", title: "The diff between the checkpoints taken around this call (a call running at the same time would show too)" },
        onClick: async () => {
          button.disabled = true;
          status.textContent = " loading…";
          try {
            diffSlot.replaceChildren(await load());
          } catch (error) {
            button.disabled = false;
            status.textContent = ` ${shown((error as Error).message)}`;
          }
        },
      });
      diffSlot.replaceChildren(el("p", { className: "call-diff-offer" }, [button, status]));
    },
    decided(decision) {
      if (resultSlot.childElementCount > 0) return;
      const notRun: Record<string, string> = { reject: "not run (rejected)", abort: "not run (run aborted)", timeout: "not run (approval timed out)" };
      status.textContent = notRun[decision] ?? "approved, running";
      if (notRun[decision]) element.classList.add("not-run");
    },
    started(event) {
      setArgs(event.payload.args);
    },
    attachApproval(card, approvalArgs) {
      if (!args.textContent) setArgs(approvalArgs);
      status.textContent = "awaiting approval";
      element.classList.add("has-approval");
      approvalSlot.append(card.element);
    },
    completed(event) {
      const p = event.payload;
      if (!args.textContent) setArgs(p.args);
      const ok = !p.is_error;
      status.textContent = `${ok ? "✓ done" : "✗ failed"} · ${Math.round(Number(p.duration_ms ?? 0))} ms`;
      element.classList.add(ok ? "ok" : "fail");
      const summaryText = shown(p.summary);
      const summary = el("summary", { className: ok ? "ok" : "fail", text: `${ok ? "✓" : "✗"} ${summaryText}` });
      if (escapesIn(summaryText) > 0) summary.append(" ", escapeBadge(escapesIn(summaryText)));
      const details = el("details", { className: "result" }, [summary]);
      if (p.output_preview !== undefined) {
        const preview = shown(p.output_preview);
        details.append(el("pre", { className: "output", text: preview }));
        const lines = Number(p.output_lines ?? 0);
        const shownLines = preview.split("\n").length;
        if (lines > shownLines) details.append(el("p", { className: "meta", text: `(${lines - shownLines} more lines not shown)` }));
      } else details.append(el("p", { className: "meta", text: "(no output shown)" }));
      resultSlot.replaceChildren(details);
      const problems = problemsOf((p.metadata ?? {}) as Record<string, any>);
      if (problems) resultSlot.append(problems);
    },
  };
}
