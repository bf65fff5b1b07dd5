import { api, ApiError } from "./api.js";
import { byId, el } from "./dom.js";
import { newestBySeq } from "./event-socket.js";
import { shown } from "./screen-text.js";

/** A session's auto-approve rules as the orchestrator states them (`AutoApproveSchema`). */
export interface AutoApproveRules {
  edits: boolean;
  commands: string[];
  memory?: boolean;
  all?: boolean;
  deny_unmatched?: boolean;
}

const neverCovered = "Never covered by a rule, always asked: protected paths, secret-file reads, memory changes, network use, invisible characters.";

/**
 * The session's auto-approve rules (`--auto-approve` semantics): whether writes run without asking,
 * and the command rules (a rule names a command's first words: `npm run lint`). Shown for the open
 * session and editable: the edits switch, a rule added or removed. Every change goes to
 * `POST /api/agent/auto-approve`; what is shown is what the orchestrator answered or announced
 * (`session.auto_approve_changed`), so every screen on the session shows the same rules. Each of
 * those carries the session's event seq it is current at, and the view keeps the highest: a reply
 * that lands after a newer announcement (another screen's change) does not draw older rules.
 */
export function createAutoApproveView() {
  const box = byId<HTMLDetailsElement>("auto-approve");
  const summary = byId("auto-approve-summary");
  const edits = byId<HTMLInputElement>("auto-approve-edits");
  const list = byId<HTMLUListElement>("auto-approve-commands");
  const form = byId<HTMLFormElement>("auto-approve-add");
  const input = byId<HTMLInputElement>("auto-approve-rule");
  const error = byId("auto-approve-error");
  const extra = byId("auto-approve-extra");
  byId("auto-approve-never").textContent = neverCovered;
  let session: string | undefined;
  const rulesSeq = newestBySeq();

  const render = (rules: AutoApproveRules, seq: number | undefined) => {
    if (!rulesSeq.accept(seq)) return;
    box.hidden = false;
    box.setAttribute("data-edits", String(rules.edits));
    edits.checked = rules.edits;
    summary.textContent = `edits ${rules.edits ? "on" : "off"} · ${rules.commands.length === 0 ? "no command rules" : `${rules.commands.length} command rule${rules.commands.length === 1 ? "" : "s"}`}`;
    list.replaceChildren(
      ...rules.commands.map((rule) =>
        el("li", { attrs: { "data-rule": shown(rule) } }, [
          el("code", { text: shown(rule) }),
          " ",
          el("button", {
            text: "Remove",
            attrs: { type: "button", "data-action": "remove-rule", "aria-label": `Remove the rule ${shown(rule)}` },
            onClick: () => void change({ remove_commands: [rule] }),
          }),
        ]),
      ),
    );
    // Set when the run started (aide run flags): shown, not editable here.
    const fixed = [
      rules.all ? "every plain write and command (--auto-approve all)" : "",
      rules.memory ? "memory changes (set at start)" : "",
      rules.deny_unmatched ? "whatever no rule covers is refused (--deny-rest)" : "",
    ].filter(Boolean);
    extra.textContent = fixed.length ? `Set when the run started: ${fixed.join("; ")}` : "";
  };

  async function change(body: { edits?: boolean; add_commands?: string[]; remove_commands?: string[] }) {
    if (!session) return;
    error.textContent = "";
    try {
      const reply = await api<{ auto_approve: AutoApproveRules; seq?: number }>("POST", "/api/agent/auto-approve", { session, ...body });
      render(reply.auto_approve, reply.seq);
      return true;
    } catch (caught) {
      error.textContent = shown(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
      return false;
    }
  }

  edits.addEventListener("change", () => void change({ edits: edits.checked }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const rule = input.value.trim();
    if (rule && (await change({ add_commands: [rule] }))) input.value = "";
  });

  return {
    /** Shows `rules` for `id` from an announcement with event seq `seq`. */
    show(id: string, rules: AutoApproveRules | undefined, seq: number | undefined) {
      if (id !== session) return;
      if (rules) render(rules, seq);
    },
    /** Opens the view on a session: its rules come from its snapshot. */
    async open(id: string) {
      // Another session starts hidden and from nothing; the same one (its next run) keeps what it shows until the snapshot.
      if (session !== id) {
        rulesSeq.reset();
        box.hidden = true;
      }
      session = id;
      error.textContent = "";
      const snapshot = await api<{ auto_approve?: AutoApproveRules; last_seq?: number }>("GET", `/api/agent/status?id=${encodeURIComponent(id)}`);
      if (session === id) render(snapshot.auto_approve ?? { edits: false, commands: [] }, snapshot.last_seq);
    },
    close() {
      session = undefined;
      rulesSeq.reset();
      box.hidden = true;
    },
  };
}
