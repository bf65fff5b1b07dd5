import { eventStreamName, instructionTrustBucketName, sessionBucketName } from "@aide/contracts";

export interface UserPermissions {
  publish: { allow?: string[]; deny?: string[] };
  subscribe: { allow?: string[]; deny?: string[] };
  /** Responders may answer the requests they receive (to any reply subject), nothing more. */
  allow_responses?: boolean | { max: number; expires?: string };
}

const stream = eventStreamName;
/**
 * Services that handle long requests send heartbeats before the reply (runtime/src/backpressure/heartbeat.ts)
 * on subjects of their own, `agent.hb.<service>.>`, each service under its own name only; the one
 * reply goes to the request's reply subject, once (`allow_responses: true`), so nats-server drops
 * each reply subject when it has been answered instead of keeping it for an hour.
 */
const heartbeats = (service: string) => `agent.hb.${service}.>`;
/** Requesters that ask for heartbeats receive them here (their own id in the subject's fourth token). */
const heartbeatInbox = "agent.hb.*.*.*";
const kv = (bucket: string) => [`$KV.${bucket}.>`, `$JS.API.STREAM.INFO.KV_${bucket}`, `$JS.API.STREAM.CREATE.KV_${bucket}`];
export const memoryBucketName = "aide_memory";
/** The checkpoints services' cross-host workspace locks (services/checkpoints kv-workspace-lock.ts). */
export const workspaceLockBucketName = "aide_workspace_locks";
/** Default orchestrator ids claimed per host (services/orchestrator instance-id-claim.ts). */
export const orchestratorIdBucketName = "aide_orchestrator_ids";
/** The object store holding session records too large for one KV value (orchestrator only). */
export const sessionOverflowBucketName = "aide_session_overflow";

/** The bus users and what each may do, in one table (docs/architecture.md lists the subjects). */
export function busPermissions(): Record<string, UserPermissions> {
  const discovery = "$SRV.>";
  return {
    orchestrator: {
      publish: {
        allow: [
          "agent.evt.>",
          "agent.audit.>",
          // Orchestrator instances forward a command to the instance running the session.
          "agent.orch.>",
          "agent.model.chat",
          "agent.model.list",
          "agent.model.abort",
          // The capability profile of a run's model (cached by the model service after one probe).
          "agent.model.probe",
          "agent.tools.>",
          "agent.checkpoints.>",
          // Workspace affinity: which tools/checkpoints instances serve which roots.
          "$SRV.INFO.aide-tools",
          "$SRV.INFO.aide-checkpoints",
          // Not agent.mcp.reload: only the supervisor, which reads the person's mcp.json, changes the servers.
          "agent.mcp.list",
          "agent.mcp.call",
          "agent.mcp.cancel",
          "agent.mcp.status",
          "$JS.API.>",
          ...kv(sessionBucketName),
          ...kv(memoryBucketName),
          ...kv(instructionTrustBucketName),
          ...kv(orchestratorIdBucketName),
          `$O.${sessionOverflowBucketName}.>`,
        ],
      },
      subscribe: { allow: ["agent.cmd.>", "agent.model.delta.>", "agent.model.progress.>", "agent.orch.>", "_INBOX_orchestrator.>", heartbeatInbox, discovery] },
      allow_responses: true,
    },
    model: {
      publish: { allow: ["agent.model.delta.>", "agent.model.progress.>", heartbeats("model")] },
      // Its own inbox: a reply over the max payload is sent as a chain of requests (chunked-transfer.ts).
      subscribe: { allow: ["agent.model.chat", "agent.model.list", "agent.model.abort", "agent.model.probe", "agent.model.reload", "_INBOX_model.>", discovery] },
      allow_responses: true,
    },
    tools: {
      // Nothing but its heartbeats and its replies.
      publish: { allow: [heartbeats("tools")] },
      subscribe: { allow: ["agent.tools.>", "_INBOX_tools.>", discovery] },
      allow_responses: true,
    },
    checkpoints: {
      // Only its workspace-lock bucket: take, renew, read and release a lock (never another stream).
      publish: {
        allow: [...kv(workspaceLockBucketName), `$JS.API.DIRECT.GET.KV_${workspaceLockBucketName}.>`, `$JS.API.STREAM.MSG.GET.KV_${workspaceLockBucketName}`, heartbeats("checkpoints")],
      },
      subscribe: { allow: ["agent.checkpoints.>", "_INBOX_checkpoints.>", discovery] },
      allow_responses: true,
    },
    /** MCP clients: answers `agent.mcp.*` requests, publishes nothing else. */
    mcp: {
      publish: { deny: [">"] },
      subscribe: { allow: ["agent.mcp.>", discovery] },
      allow_responses: true,
    },
    gateway: {
      publish: {
        allow: [
          "agent.cmd.>",
          "agent.model.list",
          "agent.checkpoints.list",
          "agent.checkpoints.diff",
          // The same, at the instances serving the workspace's root (workspace affinity).
          "agent.checkpoints.root.*.list",
          "agent.checkpoints.root.*.diff",
          "agent.tools.list",
          "$SRV.PING.>",
          "$SRV.PING",
          "$SRV.INFO.>",
          "$JS.API.INFO",
          `$JS.API.STREAM.INFO.${stream}`,
          `$JS.API.CONSUMER.CREATE.${stream}`,
          `$JS.API.CONSUMER.CREATE.${stream}.>`,
          `$JS.API.CONSUMER.INFO.${stream}.>`,
          `$JS.API.CONSUMER.DELETE.${stream}.>`,
          `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
        ],
      },
      subscribe: { allow: ["_INBOX_gateway.>", discovery] },
      allow_responses: true,
    },
    /** `nats sub 'agent.>'` and `aide events`: read-only. */
    observer: {
      publish: { deny: [">"] },
      subscribe: { allow: ["agent.>"] },
    },
    /**
     * The supervisor pings services to learn they are up, and tells the model service to reload
     * its registry when models.json changes (it reads the file outside the service's sandbox).
     */
    supervisor: {
      publish: { allow: ["$SRV.PING.>", "$SRV.PING", "$SRV.INFO.>", "$SRV.STATS.>", "agent.model.reload", "agent.mcp.reload"] },
      subscribe: { allow: ["_INBOX_supervisor.>"] },
    },
  };
}

export const busUsers = ["orchestrator", "model", "tools", "checkpoints", "gateway", "mcp", "observer", "supervisor"] as const;
export type BusUser = (typeof busUsers)[number];
