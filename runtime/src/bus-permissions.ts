import { eventStreamName, sessionBucketName } from "@aide/contracts";

export interface UserPermissions {
  publish: { allow?: string[]; deny?: string[] };
  subscribe: { allow?: string[]; deny?: string[] };
  /** Responders may answer the requests they receive (to any reply subject), nothing more. */
  allow_responses?: boolean | { max: number; expires?: string };
}

const stream = eventStreamName;
const kv = (bucket: string) => [`$KV.${bucket}.>`, `$JS.API.STREAM.INFO.KV_${bucket}`, `$JS.API.STREAM.CREATE.KV_${bucket}`];
export const memoryBucketName = "aide_memory";

/** The bus users and what each may do: ARCHITECTURE.md §2, in one table. */
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
          "agent.mcp.>",
          "$JS.API.>",
          ...kv(sessionBucketName),
          ...kv(memoryBucketName),
        ],
      },
      subscribe: { allow: ["agent.cmd.>", "agent.model.delta.>", "agent.orch.>", "_INBOX_orchestrator.>", discovery] },
      allow_responses: true,
    },
    model: {
      publish: { allow: ["agent.model.delta.>"] },
      subscribe: { allow: ["agent.model.chat", "agent.model.list", "agent.model.abort", "agent.model.probe", "agent.model.reload", discovery] },
      allow_responses: true,
    },
    tools: {
      publish: { deny: [">"] },
      subscribe: { allow: ["agent.tools.>", discovery] },
      allow_responses: true,
    },
    checkpoints: {
      publish: { deny: [">"] },
      subscribe: { allow: ["agent.checkpoints.>", discovery] },
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
      publish: { allow: ["$SRV.PING.>", "$SRV.PING", "$SRV.INFO.>", "$SRV.STATS.>", "agent.model.reload"] },
      subscribe: { allow: ["_INBOX_supervisor.>"] },
    },
  };
}

export const busUsers = ["orchestrator", "model", "tools", "checkpoints", "gateway", "mcp", "observer", "supervisor"] as const;
export type BusUser = (typeof busUsers)[number];
