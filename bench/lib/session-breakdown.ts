import { percentile } from "./results.js";

/**
 * Where one session's time went, from its events' timestamps (`ts`, the publishing service's
 * clock: the same host clock as the client's `Date.now()`), for bench:sessions:
 * - admission: the start request sent → the session's first event (the orchestrator's command
 *   queue and the session's set-up);
 * - model: each `model.requested` → its `model.responded` (the model service's queue, the bus and
 *   the scripted delay), and `model_service` the same minus the scripted delays;
 * - tools: each `tool.started` → its `tool.completed` (the tools service's queue, the bus, the
 *   tool; an approval wait is counted apart, below, when it falls inside);
 * - approvals: `approval.requested` → `approval.decided` (the client answering);
 * - checkpoints: the `duration_ms` of each `checkpoint.created`;
 * - orchestrator: what is left (context building, policy, events, the bus hops between steps).
 * Intervals of parallel steps would be counted twice; this task's steps are sequential.
 */
export interface SessionTimes {
  total_ms: number;
  admission_ms: number;
  model_ms: number;
  model_service_ms: number;
  tools_ms: number;
  approvals_ms: number;
  checkpoints_ms: number;
  orchestrator_ms: number;
}

interface Open {
  sentAt: number;
  firstEventAt?: number;
  model: Map<string, number>;
  tools: Map<string, number>;
  approvals: Map<string, number>;
  sums: { model: number; tools: number; approvals: number; checkpoints: number; approvalsInTools: number };
}

export interface BreakdownRecorder {
  started(session: string, sentAtMs: number): void;
  event(event: { session: string; type: string; ts: string; payload: Record<string, unknown> }): void;
  /** The session's figures once its terminal event is seen (`endedAtMs`, the client's clock). */
  ended(session: string, endedAtMs: number): void;
  summary(scriptedModelMs: number): Record<string, unknown>;
}

export function createBreakdownRecorder(): BreakdownRecorder {
  const open = new Map<string, Open>();
  const early = new Map<string, Array<Parameters<BreakdownRecorder["event"]>[0]>>();
  const done: SessionTimes[] = [];
  let scripted = 0;
  const apply = (state: Open, event: Parameters<BreakdownRecorder["event"]>[0]) => {
    const at = Date.parse(event.ts);
    if (!Number.isFinite(at)) return;
    state.firstEventAt ??= at;
    const id = (key: string) => String(event.payload[key] ?? "");
    const close = (from: Map<string, number>, key: string): number => {
      const began = from.get(key);
      from.delete(key);
      return began === undefined ? 0 : Math.max(0, at - began);
    };
    if (event.type === "model.requested") state.model.set(id("request_id"), at);
    else if (event.type === "model.responded") state.sums.model += close(state.model, id("request_id"));
    else if (event.type === "tool.started") state.tools.set(id("call_id"), at);
    else if (event.type === "tool.completed") state.sums.tools += close(state.tools, id("call_id"));
    else if (event.type === "approval.requested") state.approvals.set(id("approval"), at);
    else if (event.type === "approval.decided") {
      const waited = close(state.approvals, id("approval"));
      state.sums.approvals += waited;
      if (state.tools.size > 0) state.sums.approvalsInTools += waited;
    } else if (event.type === "checkpoint.created") state.sums.checkpoints += Number(event.payload.duration_ms ?? 0);
  };
  return {
    started(session, sentAtMs) {
      const state: Open = { sentAt: sentAtMs, model: new Map(), tools: new Map(), approvals: new Map(), sums: { model: 0, tools: 0, approvals: 0, checkpoints: 0, approvalsInTools: 0 } };
      open.set(session, state);
      // Events that arrived before the start reply named the session.
      for (const event of early.get(session) ?? []) apply(state, event);
      early.delete(session);
    },
    event(event) {
      const state = open.get(event.session);
      if (state !== undefined) apply(state, event);
      else early.set(event.session, [...(early.get(event.session) ?? []), event]);
    },
    ended(session, endedAtMs) {
      const state = open.get(session);
      if (state === undefined) return;
      open.delete(session);
      const total = endedAtMs - state.sentAt;
      const admission = Math.max(0, (state.firstEventAt ?? endedAtMs) - state.sentAt);
      // An approval asked for inside a tool call is waited out inside its tool interval.
      const tools = Math.max(0, state.sums.tools - state.sums.approvalsInTools);
      const known = admission + state.sums.model + tools + state.sums.approvals + state.sums.checkpoints;
      done.push({
        total_ms: total,
        admission_ms: admission,
        model_ms: state.sums.model,
        model_service_ms: 0,
        tools_ms: tools,
        approvals_ms: state.sums.approvals,
        checkpoints_ms: state.sums.checkpoints,
        orchestrator_ms: Math.max(0, total - known),
      });
    },
    summary(scriptedModelMs) {
      scripted = scriptedModelMs;
      const keys = ["total_ms", "admission_ms", "model_ms", "model_service_ms", "tools_ms", "approvals_ms", "checkpoints_ms", "orchestrator_ms"] as const;
      const rows = done.map((times) => ({ ...times, model_service_ms: Math.max(0, times.model_ms - scripted) }));
      const p50 = Object.fromEntries(
        keys.map((key) => [
          key,
          Math.round(
            percentile(
              rows.map((row) => row[key]),
              50,
            ),
          ),
        ]),
      );
      const totalSum = rows.reduce((sum, row) => sum + row.total_ms, 0) || 1;
      const share = Object.fromEntries(
        keys.filter((key) => key !== "total_ms" && key !== "model_service_ms").map((key) => [key, Math.round((rows.reduce((sum, row) => sum + row[key], 0) / totalSum) * 1000) / 1000]),
      );
      return { sessions: rows.length, p50_ms: p50, share_of_total: share, scripted_model_ms: scripted };
    },
  };
}
