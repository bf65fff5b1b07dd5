import { api, ApiError, type AgentEvent } from "./api.js";
import { createAutoApproveView } from "./auto-approve-view.js";
import { compareCheckpoints } from "./checkpoint-compare.js";
import { createCostsView } from "./costs-view.js";
import { byId } from "./dom.js";
import { followEvents, newestBySeq } from "./event-socket.js";
import { installKeyboard } from "./keyboard.js";
import { loadModelPicker } from "./model-picker.js";
import { installEvalSummary } from "./eval-summary.js";
import { createOutcomeBanner } from "./outcome-banner.js";
import { renderPinned } from "./pinned-approvals.js";
import { createRunCosts } from "./run-costs.js";
import { shown } from "./screen-text.js";
import { createSessionList } from "./session-list.js";
import { renderTimeline } from "./timeline.js";
import { createTranscript, type Transcript } from "./transcript.js";

const outcome = createOutcomeBanner();
const costs = createRunCosts();
const costsView = createCostsView();
const autoApprove = createAutoApproveView();
const sessions = createSessionList((id) => openSession(id));
let current: { session: string; transcript: Transcript; close(): void } | undefined;
let currentMode = "act";
/** A toggle's reply that lands after a newer `mode.changed` (another screen) does not undo it. */
const modeSeq = newestBySeq();

function setState(state: string) {
  const badge = byId("session-state");
  badge.textContent = state;
  badge.setAttribute("data-state", state.split(" ")[0]);
  byId<HTMLButtonElement>("abort").disabled = ["done", "unverified", "error", "aborted"].includes(state);
}

function showMode(mode: string, seq: number | undefined) {
  if (!modeSeq.accept(seq)) return;
  currentMode = mode;
  byId("mode-toggle").textContent = `Mode: ${mode}`;
  byId("mode-toggle").setAttribute("aria-pressed", String(mode === "plan"));
}

function onEvent(session: string, transcript: Transcript, event: AgentEvent) {
  transcript.add(event);
  outcome.add(event);
  if (costs.add(event)) costsView.render(costs.turns());
  const p = event.payload;
  if (event.type === "run.state") setState(p.state === "paused" ? `paused (${String(p.reason ?? "waiting")})` : String(p.state));
  if (event.type === "run.created") {
    showMode(String(p.mode), event.seq);
    byId("session-model").textContent = p.model ? `model ${shown(p.model)}` : "";
    byId("session-workspace").textContent = shown(p.workspace);
  }
  if (event.type === "mode.changed") showMode(String(p.mode), event.seq);
  if (event.type === "session.auto_approve_changed") autoApprove.show(session, p.auto_approve, event.seq);
  // A new run of the session starts with the rules its start named.
  if (event.type === "run.created") void autoApprove.open(session).catch(() => undefined);
  if (event.type === "run.completed") setState(String(p.state));
  if (event.type === "run.failed") setState("error");
  if (event.type === "run.cancelled") setState("aborted");
  if (event.type.startsWith("checkpoint.") || event.type.startsWith("run.")) void renderTimeline(session).catch(() => undefined);
  if (event.type === "run.completed" || event.type === "run.failed" || event.type === "run.cancelled" || event.type === "run.created") void sessions.refresh().catch(() => undefined);
}

/** Opens a session at `/s/<id>`: the transcript, outcome and costs are rebuilt from its event stream (a reload or a second tab resumes it). */
function openSession(session: string, push = true) {
  current?.close();
  modeSeq.reset();
  byId("connection").hidden = true;
  byId("transcript").replaceChildren();
  outcome.clear();
  costs.clear();
  costsView.clear();
  byId("compare").hidden = true;
  byId("restore-preview").hidden = true;
  byId("session-header").hidden = false;
  // The session has the room; "New task" brings the start form back.
  byId("task-form").hidden = true;
  byId("session-id").textContent = shown(session);
  byId("session-model").textContent = "";
  byId("session-workspace").textContent = "";
  setState("…");
  if (push && location.pathname !== `/s/${session}`) history.pushState({ session }, "", `/s/${encodeURIComponent(session)}`);
  document.title = `aide · ${session}`;
  const transcript = createTranscript(session, {
    onPendingChange: () => renderPinned(transcript.pending()),
    onDecided: () => void sessions.refresh().catch(() => undefined),
  });
  renderPinned([]);
  const stream = followEvents(session, {
    onEvent: (event) => onEvent(session, transcript, event),
    onPendingApproval: (event) => transcript.addPending(event),
    onConnection: (state) => (byId("connection").hidden = state === "live"),
  });
  current = { session, transcript, close: stream.close };
  void autoApprove.open(session).catch(() => undefined);
  sessions.setCurrent(session);
  void renderTimeline(session).catch(() => undefined);
}

async function refreshHealth() {
  try {
    const health = await api<{ ok: boolean; services: Record<string, boolean> }>("GET", "/api/health");
    byId("health").textContent = Object.entries(health.services)
      .map(([name, up]) => `${up ? "●" : "○"} ${name}`)
      .join("  ");
  } catch {
    byId("health").textContent = "gateway unreachable";
  }
}

byId<HTMLFormElement>("task-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = byId<HTMLParagraphElement>("form-error");
  error.hidden = true;
  const model = byId<HTMLSelectElement>("model").value;
  try {
    const started = await api<{ session: string }>("POST", "/api/agent/start", {
      task: byId<HTMLTextAreaElement>("task").value,
      workspace: byId<HTMLInputElement>("workspace").value,
      mode: byId<HTMLSelectElement>("mode").value,
      ...(model ? { model } : {}),
    });
    openSession(started.session);
    void sessions.refresh().catch(() => undefined);
  } catch (caught) {
    error.hidden = false;
    error.textContent = shown(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
  }
});
byId("mode-toggle").addEventListener("click", async () => {
  if (!current) return;
  const toggle = byId<HTMLButtonElement>("mode-toggle");
  const next = currentMode === "act" ? "plan" : "act";
  const error = byId("followup-error");
  // One switch at a time from this screen: a second click before the answer would toggle from a mode not yet settled.
  toggle.disabled = true;
  try {
    const result = await api<{ mode: string; seq?: number }>("POST", "/api/agent/mode", { session: current.session, mode: next });
    showMode(result.mode, result.seq);
  } catch (caught) {
    error.textContent = shown(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
  } finally {
    toggle.disabled = false;
  }
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
const abort = () => {
  if (current) void api("POST", "/api/agent/abort", { session: current.session }).catch(() => undefined);
};
byId("abort").addEventListener("click", abort);
byId<HTMLFormElement>("compare-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (current) void compareCheckpoints(current.session, byId<HTMLSelectElement>("compare-from").value, byId<HTMLSelectElement>("compare-to").value);
});
byId("new-task").addEventListener("click", () => {
  current?.close();
  current = undefined;
  history.pushState({}, "", "/");
  byId("session-header").hidden = true;
  autoApprove.close();
  byId("task-form").hidden = false;
  byId("transcript").replaceChildren();
  outcome.clear();
  renderPinned([]);
  sessions.setCurrent(undefined);
  byId("task").focus();
});
installKeyboard({ pending: () => current?.transcript.pending() ?? [], abort });

/** The session an address names: `/s/<id>`, or `aide open`'s `/?code=…#session=<id>` (the fragment survives the login redirect). */
function sessionInAddress(): string | undefined {
  return /^\/s\/([A-Za-z0-9_-]+)$/.exec(location.pathname)?.[1] ?? /^#session=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
}
window.addEventListener("popstate", () => {
  const session = sessionInAddress();
  if (session && session !== current?.session) openSession(session, false);
});

void refreshHealth();
installEvalSummary();
void sessions.refresh().catch(() => undefined);
void loadModelPicker().catch((error) => (byId("model-profile").textContent = shown(`models: ${(error as Error).message}`)));
const linked = sessionInAddress();
if (linked) {
  if (location.hash) history.replaceState({ session: linked }, "", `/s/${encodeURIComponent(linked)}`);
  openSession(linked, false);
}
setInterval(() => void refreshHealth(), 10_000);
