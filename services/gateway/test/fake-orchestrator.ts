import type { NatsConnection, Subscription } from "nats";
import { eventStreamName, eventSubject, experiment, type SessionSnapshot } from "@aide/contracts";

/**
 * A scripted stand-in for the orchestrator on the real bus (the real one is built in parallel):
 * it answers `agent.cmd.*`, `agent.checkpoints.list|diff` and `agent.model.list`, and publishes
 * the events of a small run into the real AGENT_EVENTS stream: some text, one `write_file` that
 * needs approval with a diff, then a checkpoint and `run.completed`.
 */
export interface FakeOrchestrator {
  /** Decisions received, in order (to assert "decided once"). */
  decisions: Array<{ session: string; approval: string; decision: string; accepted: boolean; checkpoint?: string; consent_network?: boolean; instructions_answer?: string }>;
  /**
   * Per task: the model prose and the fields of the first approval the fake run shows instead of
   * its defaults (e.g. a hostile command, a network flag).
   */
  scenarios: Map<string, { prose?: string; approval?: Record<string, unknown> }>;
  restores: Array<{ session: string; checkpoint: string; dry_run: boolean }>;
  /** Every `agent.cmd.auto_approve` request as received. */
  autoApproveChanges: Array<Record<string, unknown>>;
  /** When set, an `auto_approve` or `mode` change's reply waits for what it returns, after the change's announcement (a slow reply). */
  holdReply?: (command: "auto_approve" | "mode") => Promise<void> | undefined;
  /** Follow-up messages accepted. */
  messages: Array<{ session: string; text: string }>;
  /** Every start request as received. */
  starts: Array<Record<string, unknown>>;
  /** Every `agent.cmd.sessions` request as received (the gateway forwards the list's filters). */
  sessionQueries: Array<Record<string, unknown>>;
  sessions: Map<string, SessionSnapshot>;
  /** Opens one more pending approval on a session with these payload fields (e.g. protected flags). */
  requestApproval(session: string, fields: Record<string, unknown>): Promise<string>;
  /** Publishes one event for a session (next seq) and returns it. */
  publish(session: string, type: string, payload: Record<string, unknown>): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export const fakeDiff = "--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n # sample\n-old line\n+new line\n";
export const fakeCheckpoint = "a".repeat(40);
export const fakeCheckpoint2 = "b".repeat(40);
/** Diffs from this checkpoint come back cut, as the checkpoints service cuts an oversized one. */
export const fakeCheckpointCut = "c".repeat(40);

export async function ensureEventStream(connection: NatsConnection): Promise<void> {
  const manager = await connection.jetstreamManager();
  try {
    await manager.streams.info(eventStreamName);
  } catch {
    await manager.streams.add({ name: eventStreamName, subjects: ["agent.evt.>"] });
  }
}

function reply(message: { respond(data: Uint8Array): boolean }, body: unknown) {
  message.respond(new TextEncoder().encode(JSON.stringify(body)));
}
const notFound = (session: string) => ({ ok: false, error: { code: "SESSION_NOT_FOUND", message: `No session with id ${session}` } });

export interface FakeOrchestratorOptions {
  approvalPauses?: boolean;
  /** Answers the nth status request (1-based) with BUSY when true: an orchestrator under load. */
  statusBusy?: (count: number, session: string) => boolean;
}

export async function startFakeOrchestrator(connection: NatsConnection, options: FakeOrchestratorOptions = {}): Promise<FakeOrchestrator> {
  await ensureEventStream(connection);
  const js = connection.jetstream();
  const sessions = new Map<string, SessionSnapshot>();
  const decisions: FakeOrchestrator["decisions"] = [];
  const restores: FakeOrchestrator["restores"] = [];
  const starts: FakeOrchestrator["starts"] = [];
  const sessionQueries: FakeOrchestrator["sessionQueries"] = [];
  const messages: FakeOrchestrator["messages"] = [];
  const autoApproveChanges: FakeOrchestrator["autoApproveChanges"] = [];
  const scenarios: FakeOrchestrator["scenarios"] = new Map();
  const subscriptions: Subscription[] = [];
  let counter = 0;
  let statusRequests = 0;

  async function publish(session: string, type: string, payload: Record<string, unknown>) {
    const snapshot = sessions.get(session);
    if (!snapshot) throw new Error(`no session ${session}`);
    snapshot.last_seq += 1;
    snapshot.updated_at = new Date().toISOString();
    const event = { session, run: snapshot.run ?? "r", seq: snapshot.last_seq, ts: new Date().toISOString(), user: "local", depth: 0, ...experiment, type, payload };
    await js.publish(eventSubject(session, type), new TextEncoder().encode(JSON.stringify(event)));
    return event;
  }

  async function runUntilApproval(session: string) {
    const snapshot = sessions.get(session)!;
    const scenario = scenarios.get(snapshot.task) ?? {};
    await publish(session, "run.created", { task: snapshot.task, mode: snapshot.mode, workspace: snapshot.workspace, model: "stories260K", unsandboxed_services: false });
    await publish(session, "run.state", { state: "running" });
    await publish(session, "model.delta", { request_id: "m1", text: scenario.prose ?? "I will update the README." });
    await publish(session, "tool.started", { call_id: "c1", tool: "write_file", args: { path: "README.md" } });
    const approval = `ap${++counter}`;
    const expires = new Date(Date.now() + 600_000).toISOString();
    snapshot.state = "awaiting_approval";
    snapshot.approvals_pending.push({ id: approval, call_id: "c1", tool: "write_file", requested_at: new Date().toISOString(), expires_at: expires });
    await publish(session, "approval.requested", {
      approval,
      call_id: "c1",
      tool: "write_file",
      args: { path: "README.md" },
      diff: fakeDiff,
      paths: ["README.md"],
      protected: [],
      invisible: [],
      network: "none",
      args_digest: "d1",
      expires_at: expires,
      ...scenario.approval,
    });
    await publish(session, "run.state", { state: "awaiting_approval" });
  }

  const needsConfirmation = new Set<string>();
  async function requestApproval(session: string, fields: Record<string, unknown>): Promise<string> {
    const snapshot = sessions.get(session)!;
    const approval = `ap${++counter}`;
    const expires = new Date(Date.now() + 600_000).toISOString();
    snapshot.state = "awaiting_approval";
    snapshot.approvals_pending.push({ id: approval, call_id: `c${counter}`, tool: "write_file", requested_at: new Date().toISOString(), expires_at: expires });
    if (Array.isArray(fields.protected) && fields.protected.length > 0) needsConfirmation.add(approval);
    await publish(session, "approval.requested", {
      approval,
      call_id: `c${counter}`,
      tool: "write_file",
      args: {},
      paths: [],
      protected: [],
      invisible: [],
      network: "none",
      args_digest: "d",
      expires_at: expires,
      ...fields,
    });
    return approval;
  }

  async function finish(session: string, approval: string, decision: string) {
    const snapshot = sessions.get(session)!;
    snapshot.approvals_pending = snapshot.approvals_pending.filter((pending) => pending.id !== approval);
    await publish(session, "approval.decided", { approval, decision });
    if (decision === "abort") {
      snapshot.state = "aborted";
      await publish(session, "run.cancelled", { reason: "aborted at approval" });
      return;
    }
    snapshot.state = "running";
    await publish(session, "run.state", { state: "running" });
    await publish(session, "tool.completed", {
      call_id: "c1",
      tool: "write_file",
      args: { path: "README.md" },
      is_error: decision !== "approve",
      summary: decision === "approve" ? "wrote README.md" : "rejected",
      duration_ms: 3,
      metadata: {},
    });
    await publish(session, "checkpoint.created", { checkpoint: fakeCheckpoint2, label: "after write_file", files_changed: 1, duration_ms: 5 });
    snapshot.state = "done";
    snapshot.result = "README updated";
    await publish(session, "run.completed", {
      state: "done",
      result: "README updated",
      iterations: 2,
      files_changed: ["README.md"],
      commands_run: 0,
      checkpoints: [fakeCheckpoint, fakeCheckpoint2],
      automation_writes: [],
      evidence: ["README.md contains the new line"],
    });
  }

  const handlers: Record<string, (body: any) => Promise<unknown>> = {
    "agent.cmd.start": async (body) => {
      starts.push(body);
      const id = `s${Date.now().toString(36)}${++counter}`;
      const now = new Date().toISOString();
      sessions.set(id, {
        id,
        user: body.user ?? "local",
        workspace: body.workspace,
        mode: body.mode ?? "act",
        state: "running",
        run: `r${counter}`,
        task: body.task,
        iterations: 0,
        last_seq: 0,
        approvals_pending: [],
        created_at: now,
        updated_at: now,
        auto_approve: body.auto_approve ?? { edits: false, commands: [] },
      });
      if (options.approvalPauses !== false) setTimeout(() => runUntilApproval(id).catch(() => undefined), 20);
      return { ok: true, result: { session: id, run: `r${counter}`, state: "running" } };
    },
    "agent.cmd.status": async (body) => {
      // A reply that breaks the contract, for the gateway's INTERNAL path.
      if (body.session === "broken") return { ok: true, result: { id: 42 } };
      statusRequests += 1;
      if (options.statusBusy?.(statusRequests, body.session)) return { ok: false, error: { code: "BUSY", message: "The service is busy (status lookups); retry later" } };
      return sessions.has(body.session) ? { ok: true, result: sessions.get(body.session) } : notFound(body.session);
    },
    "agent.cmd.sessions": async (body) => {
      sessionQueries.push(body);
      return { ok: true, result: { sessions: [...sessions.values()].reverse() } };
    },
    "agent.cmd.decision": async (body) => {
      const snapshot = sessions.get(body.session);
      if (!snapshot) return notFound(body.session);
      const accepted = snapshot.approvals_pending.some((pending) => pending.id === body.approval);
      decisions.push({
        session: body.session,
        approval: body.approval,
        decision: body.decision,
        accepted,
        ...(body.checkpoint ? { checkpoint: body.checkpoint } : {}),
        ...(typeof body.consent_network === "boolean" ? { consent_network: body.consent_network } : {}),
        ...(body.instructions_answer ? { instructions_answer: body.instructions_answer } : {}),
      });
      if (!accepted) return { ok: false, error: { code: "APPROVAL_NOT_FOUND", message: `No pending approval ${body.approval} in session ${body.session}` } };
      if (body.decision === "approve" && needsConfirmation.has(body.approval) && body.confirm_protected !== true) {
        decisions[decisions.length - 1].accepted = false;
        return { ok: false, error: { code: "APPROVAL_CONFIRMATION_REQUIRED", message: `Approving ${body.approval} needs an explicit confirmation: protected path` } };
      }
      snapshot.approvals_pending = snapshot.approvals_pending.filter((pending) => pending.id !== body.approval);
      setTimeout(() => finish(body.session, body.approval, body.decision).catch(() => undefined), 10);
      return { ok: true, result: { accepted: true, state: body.decision === "abort" ? "aborted" : "running" } };
    },
    "agent.cmd.abort": async (body) => {
      const snapshot = sessions.get(body.session);
      if (!snapshot) return notFound(body.session);
      if (snapshot.state === "done" || snapshot.state === "aborted") return { ok: false, error: { code: "NOT_RUNNING", message: `Session ${body.session} has no run in progress` } };
      snapshot.state = "aborted";
      await publish(body.session, "run.cancelled", { reason: body.reason ?? "aborted" });
      return { ok: true, result: { state: "aborted" } };
    },
    "agent.cmd.message": async (body) => {
      const snapshot = sessions.get(body.session);
      if (!snapshot) return notFound(body.session);
      if (snapshot.state === "running" || snapshot.state === "awaiting_approval")
        return { ok: false, error: { code: "ALREADY_RUNNING", message: `Session ${body.session} already has a run in progress` } };
      messages.push({ session: body.session, text: body.text });
      return { ok: true, result: { run: "r2", state: "running" } };
    },
    "agent.cmd.auto_approve": async (body) => {
      autoApproveChanges.push(body);
      const snapshot = sessions.get(body.session);
      if (!snapshot) return notFound(body.session);
      const rules = snapshot.auto_approve ?? { edits: false, commands: [] };
      const commands = rules.commands.filter((rule) => !(body.remove_commands ?? []).includes(rule));
      for (const rule of body.add_commands ?? []) if (!commands.includes(rule)) commands.push(rule);
      snapshot.auto_approve = { ...rules, edits: body.edits ?? rules.edits, commands };
      const rulesNow = snapshot.auto_approve;
      await publish(body.session, "session.auto_approve_changed", { auto_approve: rulesNow });
      const seq = snapshot.last_seq;
      await fake.holdReply?.("auto_approve");
      return { ok: true, result: { auto_approve: rulesNow, seq } };
    },
    "agent.cmd.mode": async (body) => {
      const snapshot = sessions.get(body.session);
      if (!snapshot) return notFound(body.session);
      if (snapshot.mode !== body.mode) {
        snapshot.mode = body.mode;
        await publish(body.session, "mode.changed", { mode: body.mode });
      }
      const seq = snapshot.last_seq;
      await fake.holdReply?.("mode");
      return { ok: true, result: { mode: body.mode, seq } };
    },
    "agent.cmd.restore": async (body) => {
      if (!sessions.has(body.session)) return notFound(body.session);
      restores.push({ session: body.session, checkpoint: body.checkpoint, dry_run: body.dry_run });
      if (!body.dry_run) await publish(body.session, "checkpoint.restored", { checkpoint: body.checkpoint, mode: body.mode ?? "files_and_task", truncated_messages: 2 });
      return { ok: true, result: { plan: { modified: ["README.md"], created_since: [], deleted_since: [] }, applied: !body.dry_run, truncated_messages: body.dry_run ? 0 : 2 } };
    },
    "agent.checkpoints.list": async (body) => ({
      ok: true,
      result: {
        checkpoints: [
          { id: fakeCheckpoint, session: body.session ?? "s", label: "before write_file", created_at: new Date().toISOString(), files_changed: 0 },
          { id: fakeCheckpoint2, session: body.session ?? "s", label: "after write_file", created_at: new Date().toISOString(), files_changed: 1 },
        ],
      },
    }),
    "agent.checkpoints.diff": async (body) =>
      body.from === fakeCheckpointCut
        ? // What the checkpoints service sends when a file's diff is over its per-file limit: cut on a byte boundary.
          {
            ok: true,
            result: {
              files: [
                { path: "big.txt", status: "added", binary: false, diff: "--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,3 @@\n+line 1\n+line 2\n+li", truncated: true },
                { path: "huge.bin.txt", status: "modified", binary: false, truncated: true },
              ],
              omitted: 2,
            },
          }
        : { ok: true, result: { files: [{ path: "README.md", status: "modified", binary: false, diff: fakeDiff }] } },
    "agent.model.list": async () => ({ ok: true, result: { models: [], default: "stories260K" } }),
  };

  for (const [subject, handle] of Object.entries(handlers)) {
    const subscription = connection.subscribe(subject);
    subscriptions.push(subscription);
    void (async () => {
      for await (const message of subscription) {
        let body: unknown;
        try {
          body = JSON.parse(new TextDecoder().decode(message.data));
        } catch {
          reply(message, { ok: false, error: { code: "BAD_JSON", message: "bad json" } });
          continue;
        }
        reply(message, await handle(body));
      }
    })();
  }
  const fake: FakeOrchestrator = {
    decisions,
    scenarios,
    restores,
    starts,
    sessionQueries,
    messages,
    autoApproveChanges,
    sessions,
    publish,
    requestApproval,
    async stop() {
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
  return fake;
}
