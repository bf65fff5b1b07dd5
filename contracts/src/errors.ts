import { z } from "zod";

/**
 * The one catalog of error codes. Every code has a message template; `{name}` placeholders are
 * filled by `formatErrorMessage`. A test fails when a code here is missing from docs/errors.md.
 */
export const errorCatalog = {
  VALIDATION: "The request is not valid: {detail}",
  BAD_JSON: "The message body is not valid JSON: {detail}",
  PAYLOAD_TOO_LARGE: "The message is {size} bytes; the limit is {limit} bytes",
  UNKNOWN_SUBJECT: "No handler for subject {subject}",
  SESSION_NOT_FOUND: "No session with id {session}",
  RUN_NOT_FOUND: "No run with id {run}",
  ALREADY_RUNNING: "Session {session} already has a run in progress",
  NOT_RUNNING: "Session {session} has no run in progress",
  APPROVAL_NOT_FOUND: "No pending approval {approval} in session {session}",
  APPROVAL_STALE: "The approval {approval} no longer matches the workspace: {detail}",
  UNAUTHORIZED: "A valid bearer token is required",
  FORBIDDEN: "Not allowed: {detail}",
  FORBIDDEN_ORIGIN: "Requests from origin {origin} are not allowed",
  FORBIDDEN_HOST: "Requests for host {host} are not allowed",
  NOT_FOUND: "Not found: {detail}",
  RATE_LIMITED: "Too many requests; retry after {retryAfter} s",
  UNSUPPORTED_MEDIA_TYPE: "Request bodies must be application/json",
  UNAVAILABLE: "The {service} service did not answer: {detail}",
  TIMEOUT: "The operation timed out after {ms} ms",
  ABORTED: "The operation was aborted",
  BUSY: "The service is busy ({detail}); retry later",
  WORKSPACE_NOT_ALLOWED: "The workspace {workspace} is outside the configured workspace roots",
  WORKSPACE_NOT_FOUND: "The workspace {workspace} does not exist or is not a directory",
  PATH_OUTSIDE_WORKSPACE: "The path {path} resolves outside the workspace",
  PATH_DENIED: "The path {path} is not accessible to tools: {detail}",
  PATH_INVALID: "The path {path} is not valid: {detail}",
  FILE_NOT_FOUND: "No file at {path}",
  TOOL_NOT_FOUND: "No tool named {tool}",
  TOOL_FAILED: "The tool {tool} failed: {detail}",
  SANDBOX_UNAVAILABLE: "Commands are refused: {detail}",
  SANDBOX_LIMITS_UNAVAILABLE: "The command was not run: its process and memory limits could not be applied ({detail})",
  CALL_ID_CONFLICT: "The call id {call} was already used for a different call ({detail}); send a new id",
  CALL_INTERRUPTED: "The call {call} started before the tools service restarted; its outcome is unknown and it is not run again",
  MODEL_NOT_FOUND: "No model with id {model}",
  MODEL_UNAVAILABLE: "The model {model} is not available: {detail}",
  MODEL_FAILED: "The model request failed: {detail}",
  PROMPT_TRUNCATED: "The provider evaluated {actual} prompt tokens where {expected} were sent: the prompt was truncated",
  CONTEXT_FULL: "The prompt needs {needed} tokens but the model's context holds {limit}: compact the history",
  REMOTE_NOT_ALLOWED: "The endpoint {url} is not on loopback and the configuration does not allow remote endpoints",
  CONFIG_INVALID: "The configuration is not valid: {detail}",
  CHECKPOINT_FAILED: "The checkpoint failed: {detail}",
  CHECKPOINT_NOT_FOUND: "No checkpoint {checkpoint}",
  WORKSPACE_CHANGED: "The workspace changed since the latest checkpoint; pass force to restore anyway",
  CHECKPOINT_TIMEOUT: "The checkpoint of {workspace} was abandoned after {ms} ms; the previous checkpoint is intact",
  PREVIEW_REQUIRED: "Preview the restore of {checkpoint} first (confirm: false), then confirm it",
  ITERATION_LIMIT: "The run reached its limit of {limit} iterations without an accepted completion",
  MISTAKE_LIMIT: "The run stopped after {count} consecutive mistakes: {detail}",
  RUN_BUDGET_EXCEEDED: "The run exceeded its wall-clock budget of {ms} ms",
  STALLED: "The run made no progress: {detail}",
  APPROVAL_CONFIRMATION_REQUIRED: "Approving {approval} needs an explicit confirmation: {detail}",
  INTERNAL: "Internal error: {detail}",
} as const;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as [ErrorCode, ...ErrorCode[]];
export const ErrorCodeSchema = z.enum(errorCodes);

export const ErrorBodySchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export function formatErrorMessage(code: ErrorCode, values: Record<string, string | number> = {}): string {
  return errorCatalog[code].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/** An error that carries a catalog code; thrown inside services and turned into an error reply. */
export class AideError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(message ?? formatErrorMessage(code, {}));
    this.name = "AideError";
    this.code = code;
    this.details = details;
  }
  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function aideError(code: ErrorCode, values: Record<string, string | number> = {}, details?: Record<string, unknown>): AideError {
  return new AideError(code, formatErrorMessage(code, values), details);
}
