import {
  ErrorEnvelopeSchema,
  type CheckpointRestoreBodySchema,
  type DecisionRequest,
  type InstructionsListSchema,
  type ModelListResultSchema,
  type SessionSnapshot,
  type StartRequest,
} from "@aide/contracts";
import type { z } from "zod";
import { GatewayError } from "./gateway-error.js";

export interface GatewayConnection {
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  token: string;
}

export interface CheckpointInfo {
  id: string;
  label: string;
  created_at: string;
  files_changed: number;
}
export interface RestoreResult {
  plan: { modified: string[]; created_since: string[]; deleted_since: string[] };
  applied: boolean;
  truncated_messages: number;
}

/** The gateway's REST API for the CLI: bearer token on every call, errors as GatewayError. */
export function createGatewayClient(connection: GatewayConnection, fetchImpl: typeof fetch = fetch) {
  async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetchImpl(connection.baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${connection.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(180_000),
      });
    } catch (error) {
      throw new GatewayError("UNAVAILABLE", `The gateway at ${connection.baseUrl} did not answer: ${(error as Error).message}`, 0);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new GatewayError("INTERNAL", `The gateway answered ${response.status} with a body that is not JSON`, response.status);
    }
    if (!response.ok) {
      const envelope = ErrorEnvelopeSchema.safeParse(parsed);
      if (envelope.success) throw new GatewayError(envelope.data.error.code, envelope.data.error.message, response.status);
      throw new GatewayError("INTERNAL", `The gateway answered ${response.status}`, response.status);
    }
    return parsed as T;
  }
  const query = (values: Record<string, string | number | undefined>) =>
    "?" +
    new URLSearchParams(
      Object.entries(values)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();

  return {
    connection,
    start: (request: Partial<StartRequest> & { task: string; workspace: string }) => call<{ session: string; run: string; state: string }>("POST", "/api/agent/start", request),
    status: (session: string) => call<SessionSnapshot>("GET", `/api/agent/status${query({ id: session })}`),
    models: () => call<z.infer<typeof ModelListResultSchema>>("GET", "/api/models"),
    sessions: (limit = 50) => call<{ sessions: SessionSnapshot[] }>("GET", `/api/agent/sessions${query({ limit })}`),
    decide: (request: DecisionRequest) => call<{ accepted: boolean; state: string }>("POST", "/api/agent/decision", request),
    abort: (session: string, reason?: string) => call<{ state: string }>("POST", "/api/agent/abort", { session, reason }),
    checkpoints: (session: string) => call<{ checkpoints: CheckpointInfo[] }>("GET", `/api/checkpoints${query({ session })}`),
    restore: (body: z.input<typeof CheckpointRestoreBodySchema>) => call<RestoreResult>("POST", "/api/checkpoints/restore", body),
    /** The changes between two checkpoints of a session (or from one to the working tree). */
    checkpointDiff: (session: string, from: string, to?: string) =>
      call<{ files: Array<{ path: string; status: string; binary: boolean; diff?: string; truncated?: boolean }>; omitted?: number }>("GET", `/api/checkpoints/diff${query({ session, from, to })}`),
    /** The project instruction files that apply to a workspace (and `folders` on the way), each with its state. */
    instructions: (workspace: string, folders: string[] = []) =>
      call<z.infer<typeof InstructionsListSchema>>("GET", `/api/agent/instructions${query({ workspace, ...(folders.length > 0 ? { folder: folders.join(",") } : {}) })}`),
    forgetInstructions: (workspace: string, path: string) => call<{ path: string; forgotten: boolean }>("POST", "/api/agent/instructions/forget", { workspace, path }),
    /** A one-time login link for the web panel (path and query to append to the gateway's URL). */
    panelLink: (session?: string) => call<{ path: string; expires_at: string }>("POST", "/api/panel/link", session ? { session } : {}),
  };
}
export type GatewayClient = ReturnType<typeof createGatewayClient>;
