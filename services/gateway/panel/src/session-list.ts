import { api, type Snapshot } from "./api.js";
import { byId, el } from "./dom.js";
import { shown } from "./screen-text.js";

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "–";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

const active = new Set(["running", "awaiting_approval", "paused"]);

/**
 * The session list: task, workspace, state, model, start time and duration (to the last event, or
 * until now while active), filtered by state, workspace and task text; a click opens `/s/<id>`.
 */
export function createSessionList(open: (session: string) => void) {
  const list = byId<HTMLUListElement>("sessions");
  const stateFilter = byId<HTMLSelectElement>("filter-state");
  const workspaceFilter = byId<HTMLSelectElement>("filter-workspace");
  const textFilter = byId<HTMLInputElement>("filter-text");
  let sessions: Snapshot[] = [];
  let total = 0;
  let limit = 100;
  let current: string | undefined;
  const knownWorkspaces = new Set<string>();
  const matches = (s: Snapshot) => {
    const state = stateFilter.value;
    if (state === "active" ? !active.has(s.state) : state && s.state !== state) return false;
    if (workspaceFilter.value && s.workspace !== workspaceFilter.value) return false;
    const text = textFilter.value.trim().toLowerCase();
    return !text || [s.id, s.task, s.workspace, s.outcome?.result ?? ""].some((field) => field.toLowerCase().includes(text));
  };
  const render = () => {
    const shownSessions = sessions.filter(matches);
    list.replaceChildren(
      ...shownSessions.map((s) => {
        const started = new Date(s.run_started_at ?? s.created_at);
        const took = s.duration_ms ?? (active.has(s.state) ? Date.now() : new Date(s.run_ended_at ?? s.updated_at).getTime()) - started.getTime();
        const model = s.model;
        const failure = s.outcome?.error;
        const item = el("li", { className: s.id === current ? "current" : "", attrs: { "data-session": s.id, "data-state": s.state } }, [
          el("a", { className: "session-link", text: shown(s.task_title ?? s.task), attrs: { href: `/s/${encodeURIComponent(s.id)}`, title: shown(s.task) } }),
          el("div", { className: "session-meta" }, [
            el("span", { className: "state", text: s.state, attrs: { "data-state": s.state } }),
            el("span", { className: "workspace", text: shown(s.workspace), attrs: { title: shown(s.workspace) } }),
            ...(model ? [el("span", { className: "model", text: shown(model) })] : []),
            el("time", { className: "started", text: `${started.toISOString().slice(0, 10)} ${started.toTimeString().slice(0, 5)}`, attrs: { datetime: s.run_started_at ?? s.created_at } }),
            el("span", { className: "duration", text: duration(took), attrs: { title: active.has(s.state) ? "running for" : "took" } }),
          ]),
          ...(failure ? [el("div", { className: "session-error", text: `${shown(failure.code)}: ${shown(failure.message)}` })] : []),
          ...(s.outcome?.missing?.length ? [el("div", { className: "session-missing", text: `not verified: ${s.outcome.missing.map(shown).join("; ")}` })] : []),
        ]);
        // The whole card opens the session, not only its title (the link stays for Tab, middle-click and copy).
        item.addEventListener("click", (event) => {
          if ((event.target as Element).closest("a") && (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0)) return;
          if (getSelection()?.toString()) return;
          event.preventDefault();
          open(s.id);
        });
        return item;
      }),
    );
    byId("sessions-count").textContent = `${shownSessions.length} of ${Math.max(total, sessions.length)}`;
    if (total > sessions.length && limit < 500) {
      list.append(
        el("li", { className: "more" }, [
          el("button", {
            text: `Show more (${total - sessions.length} older)`,
            attrs: { type: "button", "data-action": "more-sessions" },
            onClick: () => ((limit = Math.min(500, limit + 100)), void refreshList().catch(() => undefined)),
          }),
        ]),
      );
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refilter = () => {
    render();
    clearTimeout(timer);
    timer = setTimeout(() => void refreshList().catch(() => undefined), 250);
  };
  for (const control of [stateFilter, workspaceFilter]) control.addEventListener("change", refilter);
  textFilter.addEventListener("input", refilter);
  /** The filters go to the orchestrator (`state`, `workspace`, `query`), and apply here too. */
  async function refreshList(): Promise<Snapshot[]> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (stateFilter.value && stateFilter.value !== "active") query.set("state", stateFilter.value);
    if (workspaceFilter.value) query.set("workspace", workspaceFilter.value);
    if (textFilter.value.trim()) query.set("query", textFilter.value.trim().slice(0, 200));
    const reply = await api<{ sessions: Snapshot[]; total?: number }>("GET", `/api/agent/sessions?${query}`);
    sessions = reply.sessions;
    total = reply.total ?? reply.sessions.length;
    for (const s of sessions) knownWorkspaces.add(s.workspace);
    const workspaces = [...knownWorkspaces];
    const chosen = workspaceFilter.value;
    workspaceFilter.replaceChildren(el("option", { text: "all workspaces", attrs: { value: "" } }), ...workspaces.map((w) => el("option", { text: shown(w), attrs: { value: w } })));
    workspaceFilter.value = workspaces.includes(chosen) ? chosen : "";
    byId("workspaces").replaceChildren(...workspaces.map((w) => el("option", { attrs: { value: w, label: shown(w) } })));
    const input = byId<HTMLInputElement>("workspace");
    if (!input.value && workspaces[0]) input.value = workspaces[0];
    render();
    return sessions;
  }
  return {
    setCurrent(session: string | undefined) {
      current = session;
      render();
    },
    refresh: refreshList,
  };
}
