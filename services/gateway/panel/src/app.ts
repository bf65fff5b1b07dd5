import { api, ApiError, type AgentEvent, type Snapshot } from "./api.js";
import { approvalCard } from "./approval-card.js";
import { byId, el } from "./dom.js";
import { followEvents } from "./event-socket.js";
import { shown } from "./screen-text.js";
import { renderTimeline } from "./timeline.js";
import { createTranscript } from "./transcript.js";

const transcript = createTranscript();
let current: { session: string; close(): void } | undefined;
const shownApprovals = new Set<string>();

function setState(state: string) {
  const badge = byId("session-state");
  badge.textContent = state;
  badge.setAttribute("data-state", state);
}

function showApproval(session: string, event: AgentEvent) {
  const approval = String(event.payload.approval);
  if (shownApprovals.has(approval)) return;
  shownApprovals.add(approval);
  byId("approvals").append(approvalCard(session, event.payload, () => void refreshSessions()));
}

function openSession(session: string) {
  current?.close();
  transcript.clear();
  shownApprovals.clear();
  byId("approvals").replaceChildren();
  byId("session-header").hidden = false;
  byId("session-id").textContent = shown(session);
  setState("…");
  const stream = followEvents(session, {
    onEvent(event) {
      transcript.add(event);
      if (event.type === "approval.requested") showApproval(session, event);
      if (event.type === "approval.decided") document.querySelector(`[data-approval="${CSS.escape(String(event.payload.approval))}"]`)?.remove();
      if (event.type === "run.state") setState(event.payload.state === "paused" ? `paused (${String(event.payload.reason ?? "waiting")})` : String(event.payload.state));
      if (event.type === "run.created" || event.type === "mode.changed") showMode(String(event.payload.mode));
      if (event.type === "run.completed") setState(String(event.payload.state));
      if (event.type === "run.failed") setState("error");
      if (event.type === "run.cancelled") setState("aborted");
      if (event.type.startsWith("checkpoint.") || event.type.startsWith("run.")) void renderTimeline(session).catch(() => undefined);
      if (event.type.startsWith("run.")) void refreshSessions().catch(() => undefined);
    },
    onPendingApproval: (event) => showApproval(session, event),
  });
  current = { session, close: stream.close };
  void renderTimeline(session).catch(() => undefined);
  void refreshSessions();
}

async function refreshSessions() {
  const { sessions } = await api<{ sessions: Snapshot[] }>("GET", "/api/agent/sessions?limit=50");
  byId("sessions").replaceChildren(
    ...sessions.map((s) =>
      el("li", { className: s.id === current?.session ? "current" : "", attrs: { "data-session": s.id, title: shown(s.task) }, onClick: () => openSession(s.id) }, [
        el("span", { className: "state", text: s.state }),
        shown(s.task),
      ]),
    ),
  );
  const workspaces = [...new Set(sessions.map((s) => s.workspace))];
  byId("workspaces").replaceChildren(...workspaces.map((w) => el("option", { attrs: { value: w, label: shown(w) } })));
  const input = byId<HTMLInputElement>("workspace");
  if (!input.value && workspaces[0]) input.value = workspaces[0];
}

async function refreshHealth() {
  try {
    const health = await api<{ ok: boolean; services: Record<string, boolean> }>("GET", "/api/health");
    byId("health").textContent = Object.entries(health.services).map(([name, up]) => `${up ? "●" : "○"} ${name}`).join("  ");
  } catch {
    byId("health").textContent = "gateway unreachable";
  }
}

byId<HTMLFormElement>("task-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = byId<HTMLParagraphElement>("form-error");
  error.hidden = true;
  try {
    const started = await api<{ session: string }>("POST", "/api/agent/start", {
      task: byId<HTMLTextAreaElement>("task").value,
      workspace: byId<HTMLInputElement>("workspace").value,
      mode: byId<HTMLSelectElement>("mode").value,
    });
    openSession(started.session);
  } catch (caught) {
    error.hidden = false;
    error.textContent = shown(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
  }
});
let currentMode = "act";
function showMode(mode: string) {
  currentMode = mode;
  byId("mode-toggle").textContent = `Mode: ${mode}`;
}
byId("mode-toggle").addEventListener("click", async () => {
  if (!current) return;
  const next = currentMode === "act" ? "plan" : "act";
  const result = await api<{ mode: string }>("POST", "/api/agent/mode", { session: current.session, mode: next }).catch(() => undefined);
  if (result) showMode(result.mode);
});
byId<HTMLFormElement>("followup").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>("followup-text");
  const error = byId("followup-error");
  error.textContent = "";
  if (!current || !input.value.trim()) return;
  try {
    await api("POST", "/api/agent/message", { session: current.session, text: input.value.trim() });
    input.value = "";
  } catch (caught) {
    error.textContent = shown(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
  }
});
byId("abort").addEventListener("click", () => {
  if (current) void api("POST", "/api/agent/abort", { session: current.session }).catch(() => undefined);
});

void refreshHealth();
void refreshSessions();
// `aide open SESSION` links to `/?code=…#session=ID`; the fragment survives the login redirect.
const linked = /^#session=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
if (linked) openSession(linked);
setInterval(() => void refreshHealth(), 10_000);
