/** Calls the gateway with the session cookie (same origin); errors carry the envelope's code. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok) throw new ApiError(data.error?.code ?? "INTERNAL", data.error?.message ?? `HTTP ${response.status}`);
  return data as T;
}

export interface Snapshot {
  id: string;
  state: string;
  mode: string;
  task: string;
  workspace: string;
  last_seq: number;
  created_at: string;
  updated_at: string;
  model?: string;
  /** The first line of the task (the orchestrator's list fields; absent from older orchestrators). */
  task_title?: string;
  run_started_at?: string;
  run_ended_at?: string;
  duration_ms?: number;
  outcome?: { state: string; result?: string; error?: { code: string; message: string }; missing?: string[] };
  files_changed?: string[];
  approvals_pending: Array<{ id: string }>;
}
export interface Checkpoint {
  id: string;
  label: string;
  created_at: string;
  files_changed: number;
}
export interface AgentEvent {
  seq: number;
  run?: string;
  ts?: string;
  user?: string;
  depth?: number;
  type: string;
  payload: Record<string, any>;
}
