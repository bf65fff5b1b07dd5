import { z } from "zod";
import { IdSchema, replySchema } from "./reply.js";

/** One tool call as the orchestrator hands it to the tools service (arguments not yet normalized). */
export const ToolCallSchema = z.object({
  id: z.string().min(1).max(128),
  name: z.string().min(1).max(64),
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ToolExecRequestSchema = z.object({
  session: IdSchema,
  workspace: z.string().min(1).max(4096),
  call: ToolCallSchema,
  /** Set by the orchestrator only after a person consented to network use for this call. */
  network: z.boolean().default(false),
  timeout_ms: z.number().int().positive().max(900_000).optional(),
  /**
   * The `file_digests` of the preview a person approved (sha256 hex, "" for absent). When present,
   * a mutation whose touched file no longer matches is refused with APPROVAL_STALE.
   */
  expected_digests: z.record(z.string(), z.string()).optional(),
});
export type ToolExecRequest = z.infer<typeof ToolExecRequestSchema>;

export const ToolResultSchema = z.object({
  call_id: z.string(),
  name: z.string(),
  /** A failure the model should see (file not found, no match): a normal result with is_error. */
  is_error: z.boolean(),
  /** Text for the model; already capped and with invisible characters escaped. */
  output: z.string(),
  /** Machine-readable facts for evidence and events (exit code, paths written, counts). */
  metadata: z.record(z.string(), z.unknown()).default({}),
  /** Aliases accepted or other argument repairs, reported to the model. */
  notices: z.array(z.string()).default([]),
  /** Workspace-relative paths this call changed (for checkpoints). */
  changed_paths: z.array(z.string()).default([]),
  duration_ms: z.number().nonnegative(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;
export const ToolExecReplySchema = replySchema(ToolResultSchema);

export const ToolPreviewRequestSchema = z.object({
  session: IdSchema,
  workspace: z.string().min(1).max(4096),
  call: ToolCallSchema,
});
export type ToolPreviewRequest = z.infer<typeof ToolPreviewRequestSchema>;

/** What kind of surface a protected path is (services/tools/README.md lists every pattern per kind). */
export const ProtectedKindSchema = z.enum([
  "aide",
  "agent_instructions",
  "tool_config",
  "git_internals",
  "ci",
  "lockfile",
  "package_scripts",
  "shell_rc",
  "build_config",
  "test_snapshot",
  "confusable_name",
]);
export type ProtectedKind = z.infer<typeof ProtectedKindSchema>;
export const ProtectedFlagSchema = z.object({ path: z.string(), reason: z.string(), kind: ProtectedKindSchema.optional() });
export const InvisibleFlagSchema = z.object({
  path: z.string().optional(),
  line: z.number().int().nonnegative(),
  codepoint: z.string(),
  kind: z.enum(["tag", "bidi", "zero_width", "other"]),
});

/**
 * The other form of a command an approval offers (`scriptFreeAlternative`): a package install with
 * its lifecycle scripts turned off. A person picks it with the decision's `alternative`; `rule` is
 * the allow rule for that form.
 */
export const CommandAlternativeSchema = z.object({
  id: z.literal("ignore_scripts"),
  command: z.string().max(200),
  rule: z.string().max(200),
  note: z.string().max(500),
});
export type CommandAlternative = z.infer<typeof CommandAlternativeSchema>;

export const ToolPreviewSchema = z.object({
  call_id: z.string(),
  name: z.string(),
  kind: z.enum(["read", "write", "command", "process", "other"]),
  mutating: z.boolean(),
  /** Unified diff for file mutations. */
  diff: z.string().optional(),
  /** Full command text for commands. */
  command: z.string().optional(),
  /**
   * For a command that runs workspace-defined code by design (`npm test`, `make build`, see
   * `workspaceScriptOf`): the text of what it will run, from the file it comes from.
   */
  scripts: z
    .array(z.object({ source: z.string(), name: z.string(), text: z.string() }))
    .max(20)
    .optional(),
  /**
   * sha256 (hex) of `scriptsDigestInput(scripts)` over the whole texts: what an allow rule for a
   * script runner records (`npm test sha256:<digest>`), so a changed script asks again.
   */
  scripts_digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** For an npm, pnpm or Yarn 1 install: the same install without lifecycle scripts, which the person may approve instead. */
  alternative: CommandAlternativeSchema.optional(),
  /** Workspace-relative paths the call would touch. */
  paths: z.array(z.string()).default([]),
  protected: z.array(ProtectedFlagSchema).default([]),
  invisible: z.array(InvisibleFlagSchema).default([]),
  /** Whether the command appears to use the network (the orchestrator decides consent). */
  network_suspected: z.boolean().default(false),
  /** sha256 of the normalized arguments; an approval is bound to it. */
  args_digest: z.string(),
  /** sha256 of each touched file's bytes at preview time ("" for absent): a decision applies only if unchanged. */
  file_digests: z.record(z.string(), z.string()).default({}),
  /** Preview failed in a way the model should see (e.g. SEARCH not found); the call is not offered for approval. */
  error: z.string().optional(),
  /** The catalog code of that failure (EDIT_NOT_FOUND, PATH_OUTSIDE_WORKSPACE, VALIDATION, …), when it has one. */
  error_code: z.string().max(64).optional(),
  notices: z.array(z.string()).default([]),
});
export type ToolPreview = z.infer<typeof ToolPreviewSchema>;
export const ToolPreviewReplySchema = replySchema(ToolPreviewSchema);

export const ToolListRequestSchema = z.object({}).passthrough();
export const ToolDescriptorSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** JSON Schema of the parameters as shown to the model. */
  parameters: z.record(z.string(), z.unknown()),
  read_only: z.boolean(),
  parallel_safe: z.boolean(),
  /** Which service executes it: the tools service, or the orchestrator itself. */
  handled_by: z.enum(["tools", "orchestrator", "mcp"]),
  /** For `handled_by: "mcp"`: the server and the tool's own name (services/mcp). */
  mcp: z
    .object({
      server: z.string(),
      tool: z.string(),
      read_only_hint: z.boolean().optional(),
      auto_approved: z.boolean(),
      /** Invisible or control characters in the server's tool descriptions, all together. */ hidden_characters: z.number().int().positive().optional(),
    })
    .optional(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;
export const ToolListSchema = z.object({ tools: z.array(ToolDescriptorSchema), sandbox: z.string() });
export const ToolListReplySchema = replySchema(ToolListSchema);

/**
 * `agent.tools.close`: the session ended; the tools service kills and reaps its background
 * processes. (Without it they are reaped after 15 minutes without a poll.)
 */
export const toolsCloseSubject = "agent.tools.close";
export const ToolSessionCloseRequestSchema = z.object({ session: IdSchema });
export type ToolSessionCloseRequest = z.infer<typeof ToolSessionCloseRequestSchema>;
export const ToolSessionCloseSchema = z.object({ session: z.string(), processes_reaped: z.number().int().nonnegative() });
export const ToolSessionCloseReplySchema = replySchema(ToolSessionCloseSchema);
