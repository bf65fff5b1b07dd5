import type { Logger } from "pino";
import type { CommandAlternative } from "@aide/contracts";
import type { z } from "zod";
import type { Workspace } from "../jail/workspace.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ProcessRegistry } from "../sandbox/process-registry.js";

/** What every tool's execute/plan receives. */
export interface ToolContext {
  session: string;
  workspace: Workspace;
  signal: AbortSignal;
  log: Logger;
  /** A person consented to network use for this call (set by the orchestrator only). */
  network: boolean;
  /** The per-call wall-clock budget the request asked for, if any. */
  timeoutMs?: number;
  sandbox: Sandbox;
  processes: ProcessRegistry;
}

/** A failure the model should see is a normal outcome with isError; only fatal problems throw. */
export interface ToolOutcome {
  output: string;
  isError?: boolean;
  metadata?: Record<string, unknown>;
  changedPaths?: string[];
}

/** One file a mutating tool would change: its bytes before (null = absent) and after. */
export interface FileChange {
  /** Workspace-relative real path, forward slashes; written through the jail (`workspace.writeFile`). */
  path: string;
  before: Buffer | null;
  after: Buffer;
  /** "delete": the file is removed (`after` is empty). Absent: the file is written with `after`. */
  operation?: "delete";
  /** A rename's new file: the path it comes from (which has its own "delete" change). */
  renamedFrom?: string;
}

/** A file mutation computed without touching the disk: preview shows it, execute applies it. */
export type FilePlan =
  | { ok: true; changes: FileChange[]; summary: string; metadata?: Record<string, unknown> }
  | { ok: false; error: string; metadata?: Record<string, unknown> & { error_code?: string } };

export interface CommandPreview {
  command: string;
  paths?: string[];
  /** Workspace-defined code the command runs by design (package scripts, make recipes…). */
  scripts?: Array<{ source: string; name: string; text: string }>;
  /** sha256 of those scripts' whole texts (`scriptsDigestInput`): what an allow rule for the command records. */
  scriptsDigest?: string;
  /** A package install's `--ignore-scripts` form, which the approval offers beside it. */
  alternative?: CommandAlternative;
}

export type ToolKind = "read" | "write" | "command" | "process" | "other";

export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  name: string;
  /** Short description for the model (the catalog). */
  description: string;
  parameters: P;
  /** Alternative argument names the model commonly uses, mapped to the real name. */
  aliases?: Record<string, string>;
  kind: ToolKind;
  readOnly: boolean;
  parallelSafe: boolean;
  /** Output cap in characters for text returned to the model; default 30,000. */
  maxOutputChars?: number;
  /** Per-call timeout when the tool itself does not bound its work; default 30 s. */
  timeoutMs?: number;
  /** File mutation tools: compute the change; the framework previews, checks, lints and writes. */
  plan?(args: z.infer<P>, context: ToolContext): Promise<FilePlan>;
  /** Command tools: the exact text a person approves. */
  describeCommand?(args: z.infer<P>, context: ToolContext): Promise<CommandPreview>;
  /** Everything but pure file mutations. */
  execute?(args: z.infer<P>, context: ToolContext): Promise<ToolOutcome>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any>;

export function defineTool<P extends z.ZodType>(tool: ToolDefinition<P>): ToolDefinition<P> {
  return tool;
}
