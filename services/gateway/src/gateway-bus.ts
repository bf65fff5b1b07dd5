import type { NatsConnection } from "nats";
import type { z } from "zod";
import { subjects } from "@aide/contracts";
import { busRequest, createWorkspaceRouter } from "@aide/runtime";

/** The result type inside a `{ ok, result }` reply schema. */
export type ResultOf<S extends z.ZodTypeAny> = Extract<z.infer<S>, { ok: true }> extends { result: infer R } ? R : never;

/** The requests the gateway makes on the bus, with the service named for UNAVAILABLE errors. */
export interface GatewayBus {
  /**
   * `busyWaitMs`: how long a BUSY answer is waited out with backoff (default 60 s, what a REST
   * client waits for); 0 for a lookup that has its own fallback (the event stream's status).
   */
  request<S extends z.ZodTypeAny>(subject: string, payload: unknown, replySchema: S, options?: { timeoutMs?: number; busyWaitMs?: number }): Promise<ResultOf<S>>;
  /** True when `$SRV.PING.aide-<name>` is answered in time. */
  ping(service: string, timeoutMs: number): Promise<boolean>;
}

/** Requests that read only: a no-responder (a service restarting) is retried for them; others are not. */
const readOnlySubjects = new Set<string>([subjects.cmd.status, subjects.cmd.sessions, subjects.model.list, subjects.tools.list, subjects.checkpoints.list, subjects.checkpoints.diff]);

/** How long a REST request waits out a busy orchestrator (BUSY is refused before it ran) before 503. */
const busyWaitMs = 60_000;

const serviceBySubjectArea: Record<string, string> = { cmd: "orchestrator", model: "model", tools: "tools", checkpoints: "checkpoints" };

export function createGatewayBus(connection: NatsConnection, defaultTimeoutMs = 15_000): GatewayBus {
  // Checkpoint lists and diffs go to an instance serving the workspace (workspace affinity).
  const checkpoints = createWorkspaceRouter({ connection, service: "aide-checkpoints" });
  return {
    async request(subject, payload, replySchema, options = {}) {
      const area = subject.split(".")[1] ?? "";
      const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
      const wait = options.busyWaitMs ?? busyWaitMs;
      const workspace = (payload as { workspace?: unknown } | undefined)?.workspace;
      const target = area === "checkpoints" && typeof workspace === "string" ? await checkpoints.subjectFor(subject, workspace) : subject;
      try {
        return (await busRequest(connection, target, payload, replySchema, {
          timeoutMs,
          service: serviceBySubjectArea[area] ?? area,
          ...(wait > 0 ? { retry: { deadlineMs: Math.max(timeoutMs, wait), noResponders: readOnlySubjects.has(subject) } } : {}),
        })) as never;
      } catch (error) {
        if (target !== subject && (error as { code?: string }).code === "UNAVAILABLE") checkpoints.forget();
        throw error;
      }
    },
    async ping(service, timeoutMs) {
      try {
        await connection.request(`$SRV.PING.aide-${service}`, new Uint8Array(), { timeout: timeoutMs });
        return true;
      } catch {
        return false;
      }
    },
  };
}
