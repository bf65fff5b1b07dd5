/** Subject names. Everything lives under `agent.` so `nats sub 'agent.>'` sees it all. */
export const subjects = {
  cmd: {
    start: "agent.cmd.start",
    decision: "agent.cmd.decision",
    abort: "agent.cmd.abort",
    message: "agent.cmd.message",
    mode: "agent.cmd.mode",
    status: "agent.cmd.status",
    sessions: "agent.cmd.sessions",
    restore: "agent.cmd.restore",
    instructions: "agent.cmd.instructions",
    instructionsForget: "agent.cmd.instructions_forget",
  },
  model: {
    chat: "agent.model.chat",
    list: "agent.model.list",
    abort: "agent.model.abort",
    reload: "agent.model.reload",
    probe: "agent.model.probe",
  },
  tools: {
    exec: "agent.tools.exec",
    preview: "agent.tools.preview",
    list: "agent.tools.list",
  },
  checkpoints: {
    commit: "agent.checkpoints.commit",
    restore: "agent.checkpoints.restore",
    list: "agent.checkpoints.list",
    diff: "agent.checkpoints.diff",
    prune: "agent.checkpoints.prune",
    usage: "agent.checkpoints.usage",
  },
} as const;

export const eventSubjectPrefix = "agent.evt";
export const eventStreamName = "AGENT_EVENTS";
/** Append-only audit (the egress journal: an entry before any network-consented command runs). */
export const auditStreamName = "AGENT_AUDIT";
export const egressJournalSubject = "agent.audit.egress";
export const sessionBucketName = "aide_sessions";

/** `agent.evt.<session>.<type>`; the type's dots stay (subscribe `agent.evt.<session>.>`). */
export function eventSubject(session: string, type: string): string {
  return `${eventSubjectPrefix}.${session}.${type}`;
}
export function sessionEventFilter(session: string): string {
  return `${eventSubjectPrefix}.${session}.>`;
}
/** Model deltas stream to `agent.model.delta.<request_id>`, which only the orchestrator reads. */
export function modelDeltaSubject(requestId: string): string {
  return `agent.model.delta.${requestId}`;
}

export const serviceNames = ["orchestrator", "model", "tools", "checkpoints", "gateway", "mcp"] as const;
export type ServiceName = (typeof serviceNames)[number];
