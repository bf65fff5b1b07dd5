import { z } from "zod";
import { IdSchema, replySchema } from "./reply.js";

/**
 * Model Context Protocol servers as tools (services/mcp). The person declares servers in
 * `$AIDE_HOME/mcp.json`; a workspace's `.mcp.json` counts only once trusted (`aide mcp trust`).
 * Tools reach the model as `mcp__<server>__<tool>`; every call passes the orchestrator's gate.
 */
export const mcpSubjects = {
  list: "agent.mcp.list",
  call: "agent.mcp.call",
  cancel: "agent.mcp.cancel",
  status: "agent.mcp.status",
  /** The supervisor's only MCP subject: `$AIDE_HOME/mcp.json` changed (the service's sandbox pins the inode it was started with). */
  reload: "agent.mcp.reload",
} as const;

/** Server names: lower-case letters, digits and single '-' (no `__`, which separates the parts of a tool name). */
export const McpServerNameSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, "must be lower-case letters and digits, joined by single '-' (e.g. github, issue-tracker)");

/** Environment variable names a server may be given. */
const EnvNameSchema = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "must be an upper-case environment variable name");

const StdioServerSchema = z
  .object({
    type: z.literal("stdio").default("stdio"),
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(200).default([]),
    /** Literal values (not secrets): shown by `aide mcp list`. */
    env: z.record(EnvNameSchema, z.string().max(8192)).default({}),
    /** Variables copied from the environment of `aide up`, by name (an allow-list). */
    env_passthrough: z.array(EnvNameSchema).max(100).default([]),
    /** Secrets: each value read from a file under `$AIDE_HOME/mcp-secrets/` (mode 0600), by file name. */
    env_files: z.record(EnvNameSchema, z.string().regex(/^[A-Za-z0-9._-]+$/, "must be a file name in $AIDE_HOME/mcp-secrets")).default({}),
    /** The person consented to network use for this server; without it the server has no network namespace of its own beyond loopback. */
    network: z.boolean().default(false),
    /** The workspace is read-only unless the person declared that this server writes it. */
    workspace_write: z.boolean().default(false),
    /** Tools the person allows without asking (names as the server gives them, or "*"). */
    auto_approve: z.array(z.string().min(1).max(128)).max(200).default([]),
    call_timeout_ms: z.number().int().positive().max(600_000).default(60_000),
    max_memory_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024 * 1024),
    max_processes: z.number().int().positive().max(4096).default(256),
    disabled: z.boolean().default(false),
  })
  .strict();

const HttpServerSchema = z
  .object({
    type: z.literal("http"),
    url: z.string().url(),
    /** A non-loopback URL needs this, as models do (REMOTE_NOT_ALLOWED otherwise). */
    allowRemote: z.boolean().default(false),
    auto_approve: z.array(z.string().min(1).max(128)).max(200).default([]),
    call_timeout_ms: z.number().int().positive().max(600_000).default(60_000),
    disabled: z.boolean().default(false),
  })
  .strict();

/** Discriminated by `type` (absent: stdio), so an error names the field of the kind meant, not "invalid input". */
export const McpServerConfigSchema = z.preprocess(
  (value) => (value && typeof value === "object" && !Array.isArray(value) && !("type" in value) ? { ...value, type: "stdio" } : value),
  z.discriminatedUnion("type", [StdioServerSchema, HttpServerSchema]),
);
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
export type McpStdioServerConfig = z.infer<typeof StdioServerSchema>;

export const McpConfigSchema = z
  .object({
    servers: z.record(McpServerNameSchema, McpServerConfigSchema).default({}),
  })
  .strict();
export type McpConfig = z.infer<typeof McpConfigSchema>;

/** `$AIDE_HOME/mcp-trust/trusted.json`: workspace `.mcp.json` files the person trusted, by digest. */
export const McpTrustFileSchema = z.object({ trusted: z.record(z.string().min(1), z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), trusted_at: z.string() })).default({}) }).strict();
export type McpTrustFile = z.infer<typeof McpTrustFileSchema>;

export const McpToolSchema = z.object({
  /** `mcp__<server>__<tool>` with the tool's name made safe for XML tags and native function names. */
  name: z.string(),
  server: McpServerNameSchema,
  /** The tool's name as the server gives it (sent back on calls). */
  tool: z.string(),
  description: z.string(),
  /** JSON Schema of the arguments, as converted (only what the converter could represent). */
  parameters: z.record(z.string(), z.unknown()),
  /** The server's `readOnlyHint`: display metadata, never an authorization. */
  read_only_hint: z.boolean().optional(),
  /** The person's rule in mcp.json lets this tool run without asking. */
  auto_approved: z.boolean(),
  /** Set for servers from a trusted workspace `.mcp.json`: the workspace they belong to. */
  workspace: z.string().optional(),
  /**
   * How many invisible or control characters the server put in this tool's description and input
   * schema (shown to the model as visible tokens, like every MCP text): a sign of tool poisoning.
   */
  hidden_characters: z.number().int().positive().optional(),
});
export type McpTool = z.infer<typeof McpToolSchema>;

export const McpRefusedToolSchema = z.object({ server: z.string(), tool: z.string(), reason: z.string() });

export const McpServerStateSchema = z.object({
  name: z.string(),
  state: z.enum(["starting", "ready", "restarting", "failed", "disabled"]),
  transport: z.enum(["stdio", "http"]),
  origin: z.enum(["home", "workspace"]),
  /** One line: what the server's sandbox allows (network, workspace access, limits). */
  sandbox: z.string(),
  tools: z.number().int().nonnegative(),
  restarts: z.number().int().nonnegative(),
  last_error: z.string().optional(),
  pid: z.number().int().optional(),
  /** Invisible or control characters in the descriptions of its tools, all together (`McpTool.hidden_characters`). */
  hidden_characters: z.number().int().positive().optional(),
});
export type McpServerState = z.infer<typeof McpServerStateSchema>;

export const McpListRequestSchema = z.object({ workspace: z.string().max(4096).optional() });
export const McpListSchema = z.object({
  tools: z.array(McpToolSchema),
  refused: z.array(McpRefusedToolSchema),
  servers: z.array(McpServerStateSchema),
  /** Workspace `.mcp.json` files seen and not loaded (not trusted, or changed since). */
  ignored: z.array(z.object({ file: z.string(), reason: z.string() })).default([]),
});
export type McpList = z.infer<typeof McpListSchema>;
export const McpListReplySchema = replySchema(McpListSchema);

export const McpCallRequestSchema = z.object({
  session: IdSchema,
  call_id: z.string().min(1).max(128),
  server: McpServerNameSchema,
  tool: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()),
  workspace: z.string().max(4096).optional(),
  timeout_ms: z.number().int().positive().max(600_000).optional(),
});
export type McpCallRequest = z.infer<typeof McpCallRequestSchema>;
export const McpCallResultSchema = z.object({
  is_error: z.boolean(),
  /** The result's text (text parts, and a one-line note for each image, audio or resource part), capped. */
  output: z.string(),
  truncated: z.boolean(),
  /** Set when the service refused or failed the call itself (timeout, validation, server down). */
  error_code: z.string().optional(),
  duration_ms: z.number().nonnegative(),
});
export type McpCallResult = z.infer<typeof McpCallResultSchema>;
export const McpCallReplySchema = replySchema(McpCallResultSchema);

export const McpCancelRequestSchema = z.object({ call_id: z.string().min(1).max(128) });
export const McpCancelReplySchema = replySchema(z.object({ cancelled: z.boolean() }));

/**
 * agent.mcp.reload: the person's `$AIDE_HOME/mcp.json` as the supervisor read it (null: the file is
 * gone, no servers). The service validates it as at start (CONFIG_INVALID naming the field, and
 * the servers it runs stay as they are), then stops removed and changed servers and starts new ones.
 */
export const McpReloadRequestSchema = z.object({ document: z.unknown(), source: z.string().max(4096) }).strict();
export type McpReloadRequest = z.infer<typeof McpReloadRequestSchema>;
export const McpReloadResultSchema = z.object({ source: z.string(), started: z.array(z.string()), stopped: z.array(z.string()), restarted: z.array(z.string()), kept: z.array(z.string()) });
export type McpReloadResult = z.infer<typeof McpReloadResultSchema>;
export const McpReloadReplySchema = replySchema(McpReloadResultSchema);

/** The tool name the model sees for a server's tool. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_]/g, "_")}`.slice(0, 64);
}
