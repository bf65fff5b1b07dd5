import type { NatsConnection, JetStreamClient } from "nats";
import {
  CheckpointCommitReplySchema,
  CheckpointPruneReplySchema,
  CheckpointRestoreReplySchema,
  ModelChatReplySchema,
  ModelListReplySchema,
  ModelProbeReplySchema,
  ModelDeltaSchema,
  ToolExecReplySchema,
  ToolListReplySchema,
  ToolPreviewReplySchema,
  ToolSessionCloseReplySchema,
  toolsCloseSubject,
  egressJournalSubject,
  modelDeltaSubject,
  subjects,
  mcpSubjects,
  McpCallReplySchema,
  McpCancelReplySchema,
  McpListReplySchema,
} from "@aide/contracts";
import { busRequest, decodeJson, encodeJson } from "@aide/runtime";
import type { CheckpointsPort, EgressJournal, McpPort, ModelPort, ToolsPort } from "./service-ports.js";

export interface BusPortTimeouts {
  modelTimeoutMs: number;
  /** How long a run waits for its model's first capability probe (later runs read the cache). */
  probeTimeoutMs?: number;
  toolTimeoutMs: number;
  checkpointTimeoutMs: number;
}

export function busModelPort(connection: NatsConnection, timeouts: BusPortTimeouts): ModelPort {
  return {
    async chat(request, onDelta, signal) {
      // Subscribe before the request goes out: the model publishes deltas before its reply.
      const subscription = request.stream
        ? connection.subscribe(modelDeltaSubject(request.request_id), {
            callback: (error, message) => {
              if (error) return;
              try {
                const delta = ModelDeltaSchema.parse(decodeJson(message.data));
                onDelta(delta.text);
              } catch {
                // A malformed delta is dropped; the final reply carries the whole text anyway.
              }
            },
          })
        : undefined;
      const onAbort = () => connection.publish(subjects.model.abort, encodeJson({ request_id: request.request_id }));
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const timeoutMs = (request.timeout_ms ?? timeouts.modelTimeoutMs) + 5_000;
        return await busRequest(connection, subjects.model.chat, request, ModelChatReplySchema, { timeoutMs, service: "model" });
      } finally {
        signal?.removeEventListener("abort", onAbort);
        subscription?.unsubscribe();
      }
    },
    async contextTokens(model) {
      try {
        const result = await busRequest(connection, subjects.model.list, {}, ModelListReplySchema, { timeoutMs: 5_000, service: "model" });
        const id = model ?? result.default;
        return result.models.find((info) => info.id === id)?.context_budget;
      } catch {
        return undefined;
      }
    },
    async profile(model) {
      try {
        return await busRequest(connection, subjects.model.probe, { automatic: true, ...(model === undefined ? {} : { model }) }, ModelProbeReplySchema, { timeoutMs: timeouts.probeTimeoutMs ?? 180_000, service: "model" });
      } catch {
        return undefined;
      }
    },
    async modelInfo(model) {
      try {
        const result = await busRequest(connection, subjects.model.list, {}, ModelListReplySchema, { timeoutMs: 5_000, service: "model" });
        const info = result.models.find((entry) => entry.id === (model ?? result.default));
        return info ? { contextTokens: info.context_budget, provider: info.provider } : undefined;
      } catch {
        return undefined;
      }
    },
    async models() {
      try {
        const result = await busRequest(connection, subjects.model.list, {}, ModelListReplySchema, { timeoutMs: 10_000, service: "model" });
        return { ids: result.models.map((info) => info.id), default: result.default, ...(result.hint !== undefined ? { hint: result.hint } : {}) };
      } catch {
        return undefined;
      }
    },
  };
}

export function busToolsPort(connection: NatsConnection, timeouts: BusPortTimeouts): ToolsPort {
  return {
    async list() {
      const result = await busRequest(connection, subjects.tools.list, {}, ToolListReplySchema, { timeoutMs: 10_000, service: "tools" });
      return result.tools;
    },
    async close(session) {
      await busRequest(connection, toolsCloseSubject, { session }, ToolSessionCloseReplySchema, { timeoutMs: 15_000, service: "tools" });
    },
    async preview(session, workspace, call) {
      return busRequest(connection, subjects.tools.preview, { session, workspace, call }, ToolPreviewReplySchema, {
        timeoutMs: 60_000,
        service: "tools",
      });
    },
    async exec(session, workspace, call, options) {
      const timeoutMs = options.timeoutMs ?? timeouts.toolTimeoutMs;
      const body = {
        session,
        workspace,
        call,
        network: options.network,
        timeout_ms: Math.min(timeoutMs, 900_000),
        ...(options.expectedDigests ? { expected_digests: options.expectedDigests } : {}),
      };
      return busRequest(connection, subjects.tools.exec, body, ToolExecReplySchema, { timeoutMs: timeoutMs + 10_000, service: "tools" });
    },
  };
}

export function busCheckpointsPort(connection: NatsConnection, timeouts: BusPortTimeouts): CheckpointsPort {
  return {
    async commit(request) {
      const timeoutMs = request.timeout_ms ?? timeouts.checkpointTimeoutMs;
      const result = await busRequest(connection, subjects.checkpoints.commit, { ...request, timeout_ms: timeoutMs }, CheckpointCommitReplySchema, {
        timeoutMs: timeoutMs + 5_000,
        service: "checkpoints",
      });
      return result.checkpoint;
    },
    async restore(request) {
      return busRequest(connection, subjects.checkpoints.restore, request, CheckpointRestoreReplySchema, {
        timeoutMs: timeouts.checkpointTimeoutMs + 5_000,
        service: "checkpoints",
      });
    },
    async prune(workspace) {
      // The service bounds a prune at 10 minutes; it runs after the run has ended, off its path.
      await busRequest(connection, subjects.checkpoints.prune, { workspace }, CheckpointPruneReplySchema, { timeoutMs: 11 * 60_000, service: "checkpoints" });
    },
  };
}

/** The egress journal: an append-only JetStream stream; `append` resolves on the stream's ack. */
export function jetStreamEgressJournal(js: JetStreamClient): EgressJournal {
  return {
    async append(entry) {
      await js.publish(egressJournalSubject, encodeJson(entry), { msgID: `egress-${entry.session}-${entry.approval}` });
    },
  };
}

export function busMcpPort(connection: NatsConnection): McpPort {
  return {
    async list(workspace) {
      try {
        // Servers of a trusted workspace file start on the first list: give them time to come up.
        return await busRequest(connection, mcpSubjects.list, { workspace }, McpListReplySchema, { timeoutMs: 45_000, service: "mcp" });
      } catch {
        return undefined;
      }
    },
    async call(request) {
      return busRequest(connection, mcpSubjects.call, request, McpCallReplySchema, { timeoutMs: (request.timeout_ms ?? 60_000) + 10_000, service: "mcp" });
    },
    async cancel(callId) {
      await busRequest(connection, mcpSubjects.cancel, { call_id: callId }, McpCancelReplySchema, { timeoutMs: 5_000, service: "mcp" }).catch(() => undefined);
    },
  };
}
