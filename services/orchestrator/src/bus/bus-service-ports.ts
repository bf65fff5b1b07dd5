import { randomUUID } from "node:crypto";
import type { NatsConnection, JetStreamClient } from "nats";
import {
  CheckpointCommitReplySchema,
  CheckpointPruneReplySchema,
  CheckpointRestoreReplySchema,
  ModelChatReplySchema,
  ModelListReplySchema,
  ModelProbeReplySchema,
  ModelDeltaSchema,
  ModelProbeProgressSchema,
  modelProgressSubject,
  ToolExecReplySchema,
  ToolListReplySchema,
  ToolPreviewReplySchema,
  ToolSessionCloseReplySchema,
  toolsCloseSubject,
  toolsInstructionsSubject,
  ToolInstructionsReplySchema,
  type ToolDescriptor,
  egressJournalSubject,
  modelDeltaSubject,
  subjects,
  mcpSubjects,
  McpCallReplySchema,
  McpCancelReplySchema,
  McpListReplySchema,
} from "@aide/contracts";
import { busRequest, createWorkspaceRouter, decodeJson, encodeJson, type HeartbeatPolicy, type RetryPolicy, type WorkspaceRouter } from "@aide/runtime";
import { defaultBackpressure, type BackpressureSettings } from "../config/backpressure-settings.js";
import type { CheckpointsPort, EgressJournal, McpPort, ModelPort, ToolsPort } from "./service-ports.js";

/** A request on the subject of the instances serving `workspace`; a vanished instance makes the router ask again. */
async function routed<T>(router: WorkspaceRouter, subject: string, workspace: string, send: (subject: string) => Promise<T>): Promise<T> {
  const target = await router.subjectFor(subject, workspace);
  try {
    return await send(target);
  } catch (error) {
    if ((error as { code?: string }).code === "UNAVAILABLE") router.forget();
    throw error;
  }
}

export interface BusPortTimeouts {
  modelTimeoutMs: number;
  /** How long a run waits for its model's first capability probe (later runs read the cache). */
  probeTimeoutMs?: number;
  toolTimeoutMs: number;
  checkpointTimeoutMs: number;
  backpressure?: BackpressureSettings;
}

/**
 * How every port waits out a busy service: BUSY is retried with backoff and jitter until the
 * deadline (a request refused BUSY never ran); a no-responder (a service restarting) is retried
 * only for requests that are idempotent or that the service deduplicates. Calls on a run's start
 * path get a short deadline, so a start answers in time; calls inside a run wait longer.
 */
function portPolicies(timeouts: BusPortTimeouts) {
  const settings = timeouts.backpressure ?? defaultBackpressure;
  return {
    settings,
    retry: (options: { deadlineMs?: number; noResponders: boolean; interrupted?: boolean; signal?: AbortSignal }): RetryPolicy => ({
      deadlineMs: options.deadlineMs ?? settings.busyWaitMs,
      noResponders: options.noResponders,
      ...(options.interrupted ? { interrupted: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
    heartbeat: (mayHaveRun: boolean): HeartbeatPolicy => ({ intervalMs: settings.heartbeatIntervalMs, timeoutMs: settings.heartbeatTimeoutMs, mayHaveRun }),
  };
}

/** A run's start path waits this long for a busy service at most (the gateway's start waits longer). */
const startPathDeadlineMs = 30_000;

/** The wall-clock limit run_command gets from its arguments (the tools service's default is 2 min). */
function commandTimeoutMs(call: { name: string; arguments: Record<string, unknown> }): number | undefined {
  if (call.name !== "run_command") return undefined;
  const raw = call.arguments["timeout_ms"];
  const value = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : 120_000;
  return Number.isFinite(value) && value > 0 ? value : 120_000;
}

export function busModelPort(connection: NatsConnection, timeouts: BusPortTimeouts): ModelPort {
  const policies = portPolicies(timeouts);
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
        // A chat has no effect outside the model service: a busy, restarting or dead one is waited out.
        return await busRequest(connection, subjects.model.chat, request, ModelChatReplySchema, {
          timeoutMs,
          service: "model",
          retry: policies.retry({ deadlineMs: Math.max(timeoutMs, policies.settings.busyWaitMs), noResponders: true, interrupted: true, ...(signal ? { signal } : {}) }),
          heartbeat: policies.heartbeat(false),
        });
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
    async profile(model, onProgress) {
      // Subscribed before the request goes out, as for deltas: a probe reports before it answers.
      const token = onProgress ? randomUUID().replaceAll("-", "") : undefined;
      const subscription =
        token !== undefined && onProgress
          ? connection.subscribe(modelProgressSubject(token), {
              callback: (error, message) => {
                if (error) return;
                const progress = ModelProbeProgressSchema.safeParse(decodeJson(message.data));
                if (progress.success) onProgress(progress.data);
              },
            })
          : undefined;
      try {
        return await busRequest(
          connection,
          subjects.model.probe,
          { automatic: true, ...(model === undefined ? {} : { model }), ...(token !== undefined ? { progress: token } : {}) },
          ModelProbeReplySchema,
          { timeoutMs: timeouts.probeTimeoutMs ?? 180_000, service: "model" },
        );
      } catch {
        return undefined;
      } finally {
        subscription?.unsubscribe();
      }
    },
    async modelInfo(model) {
      try {
        const result = await busRequest(connection, subjects.model.list, {}, ModelListReplySchema, { timeoutMs: 5_000, service: "model" });
        const info = result.models.find((entry) => entry.id === (model ?? result.default));
        return info ? { contextTokens: info.context_budget, provider: info.provider, ...(info.edit_format !== undefined ? { editFormat: info.edit_format } : {}) } : undefined;
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

/** How long a fetched tool catalog is reused: every start reads it, and it changes only with the service. */
const catalogTtlMs = 5_000;

export function busToolsPort(connection: NatsConnection, timeouts: BusPortTimeouts, router: WorkspaceRouter = createWorkspaceRouter({ connection, service: "aide-tools" })): ToolsPort {
  const policies = portPolicies(timeouts);
  // One catalog request at a time, shared by every start that needs it (a burst of starts would
  // otherwise queue hundreds of identical requests at the tools service).
  let catalog: { at: number; tools: Promise<ToolDescriptor[]> } | undefined;
  const fetchCatalog = async () => {
    const result = await busRequest(connection, subjects.tools.list, {}, ToolListReplySchema, {
      timeoutMs: 10_000,
      service: "tools",
      retry: policies.retry({ deadlineMs: startPathDeadlineMs, noResponders: true }),
    });
    return result.tools;
  };
  return {
    async checkWorkspace(workspace) {
      await router.subjectFor(subjects.tools.exec, workspace);
    },
    list() {
      if (catalog === undefined || Date.now() - catalog.at > catalogTtlMs) {
        const entry = { at: Date.now(), tools: fetchCatalog() };
        catalog = entry;
        // A failed fetch is not reused: the next start asks again.
        entry.tools.catch(() => {
          if (catalog === entry) catalog = undefined;
        });
      }
      return catalog.tools;
    },
    async close(session) {
      await busRequest(connection, toolsCloseSubject, { session }, ToolSessionCloseReplySchema, {
        timeoutMs: 15_000,
        service: "tools",
        retry: policies.retry({ deadlineMs: 20_000, noResponders: true }),
      });
    },
    async instructions(session, workspace, folders) {
      const result = await routed(router, toolsInstructionsSubject, workspace, (subject) =>
        busRequest(connection, subject, { session, workspace, folders }, ToolInstructionsReplySchema, { timeoutMs: 30_000, service: "tools", retry: policies.retry({ noResponders: true }) }),
      );
      return result.files;
    },
    async preview(session, workspace, call) {
      return routed(router, subjects.tools.preview, workspace, (subject) =>
        busRequest(connection, subject, { session, workspace, call }, ToolPreviewReplySchema, {
          timeoutMs: 60_000,
          service: "tools",
          retry: policies.retry({ noResponders: true }),
        }),
      );
    },
    async exec(session, workspace, call, options) {
      // A command's request lasts its own timeout plus a margin, not the tool ceiling; the
      // heartbeats notice a dead service long before either.
      const ceiling = Math.min(options.timeoutMs ?? timeouts.toolTimeoutMs, 900_000);
      const command = commandTimeoutMs(call);
      const callTimeoutMs = command === undefined ? ceiling : Math.min(ceiling, command + policies.settings.commandReplyMarginMs);
      const body = {
        session,
        workspace,
        call,
        network: options.network,
        timeout_ms: callTimeoutMs,
        ...(options.expectedDigests ? { expected_digests: options.expectedDigests } : {}),
      };
      // The tools service runs a call id once (its call store), so a no-responder retry cannot run it twice.
      return routed(router, subjects.tools.exec, workspace, (subject) =>
        busRequest(connection, subject, body, ToolExecReplySchema, {
          timeoutMs: callTimeoutMs + 10_000,
          service: "tools",
          retry: policies.retry({ deadlineMs: Math.max(callTimeoutMs + 10_000, policies.settings.busyWaitMs), noResponders: true }),
          heartbeat: policies.heartbeat(true),
        }),
      );
    },
  };
}

export function busCheckpointsPort(
  connection: NatsConnection,
  timeouts: BusPortTimeouts,
  router: WorkspaceRouter = createWorkspaceRouter({ connection, service: "aide-checkpoints" }),
): CheckpointsPort {
  const policies = portPolicies(timeouts);
  return {
    async checkWorkspace(workspace) {
      await router.subjectFor(subjects.checkpoints.commit, workspace);
    },
    async commit(request) {
      const timeoutMs = request.timeout_ms ?? timeouts.checkpointTimeoutMs;
      // A checkpoint snapshots the workspace as it is: sending one that was never delivered (no responder) again is harmless.
      const result = await routed(router, subjects.checkpoints.commit, request.workspace, (subject) =>
        busRequest(connection, subject, { ...request, timeout_ms: timeoutMs }, CheckpointCommitReplySchema, {
          timeoutMs: timeoutMs + 5_000,
          service: "checkpoints",
          retry: policies.retry({ deadlineMs: Math.max(timeoutMs + 5_000, policies.settings.busyWaitMs), noResponders: true }),
        }),
      );
      return result.checkpoint;
    },
    async restore(request) {
      // A restore changes the workspace: BUSY (refused before it ran) is retried, a no-responder is not.
      return routed(router, subjects.checkpoints.restore, request.workspace, (subject) =>
        busRequest(connection, subject, request, CheckpointRestoreReplySchema, {
          timeoutMs: timeouts.checkpointTimeoutMs + 5_000,
          service: "checkpoints",
          retry: policies.retry({ deadlineMs: timeouts.checkpointTimeoutMs + 5_000, noResponders: false }),
        }),
      );
    },
    async prune(workspace) {
      // The service bounds a prune at 10 minutes; it runs after the run has ended, off its path.
      await routed(router, subjects.checkpoints.prune, workspace, (subject) =>
        busRequest(connection, subject, { workspace }, CheckpointPruneReplySchema, { timeoutMs: 11 * 60_000, service: "checkpoints" }),
      );
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
