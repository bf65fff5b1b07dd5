import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { aideError } from "@aide/contracts";
import { positiveIntegerSetting } from "@aide/runtime";

export interface ToolsServiceSettings {
  workspaceRoots: string[];
  /** Only then may commands run without bubblewrap. */
  unsafeNoSandbox: boolean;
  /** Requests handled at once (AIDE_TOOLS_MAX_CONCURRENT); more wait their turn, fairly per session. */
  maxConcurrent: number;
  /** Requests waiting for a handler at most, over all sessions (AIDE_TOOLS_MAX_QUEUED); past it BUSY. */
  maxQueued: number;
  /** Requests of one session waiting at most (AIDE_TOOLS_MAX_QUEUED_PER_SESSION). */
  maxQueuedPerSession: number;
  /** How long a request may wait for a handler before BUSY (AIDE_TOOLS_QUEUE_WAIT_MS). */
  queueWaitMs: number;
  /** AIDE_TOOLS_SEARCH=js: use the JavaScript search even when ripgrep is present (tests, comparison). */
  forceJavascriptSearch: boolean;
  /** Per-command limits (services/tools/README.md, "Settings"). */
  commands: {
    maxProcesses: number;
    maxMemoryBytes: number;
    maxFileSizeBytes: number;
    maxConcurrent: number;
    maxQueued: number;
    /** Commands of one session waiting at most (AIDE_TOOLS_MAX_QUEUED_COMMANDS_PER_SESSION). */
    maxQueuedPerSession: number;
    /** "required": a command whose cgroup limits cannot be applied is refused; "off": it runs without them. */
    limits: "required" | "off";
    /** Where the cgroup v1 hierarchies are mounted. */
    cgroupRoot: string;
    /** Jails set up ahead for the next foreground commands (AIDE_TOOLS_PREPARED_JAILS; 0 = none). */
    preparedJails: number;
    /** The shells and jails made ahead forked by the spawn helper (AIDE_TOOLS_SPAWN_HELPER, default on; `off`: by the service itself). */
    spawnHelper: boolean;
  };
  /** Where the call store keeps mutations' results across restarts; undefined = memory only. */
  stateDirectory: string | undefined;
  /** Results kept for repeated call ids. */
  callStoreEntries: number;
  /** The TypeScript checker behind `diagnostics` and the feedback after edits. */
  diagnostics: {
    enabled: boolean;
    timeoutMs: number;
    idleMs: number;
    /** How long an edit waits for its diagnostics (the check itself goes on to `timeoutMs`). */
    waitMs: number;
    /** AIDE_TOOLS_DIAGNOSTICS_WORKER: another worker script (tests: one that never answers). */
    workerScript: string | undefined;
    /** AIDE_TOOLS_PYRIGHT_COMMAND: the language server to start for Python instead of the installed pyright-langserver (words, the first an absolute path); undefined = the installed one. */
    pyrightCommand: string[] | undefined;
    /** AIDE_TOOLS_PYRIGHT=off: no Python checker (the diagnostics tool refuses .py). */
    pyright: boolean;
    /**
     * AIDE_TOOLS_GOPLS: `off` checks Go with go vet only; a command line (words, the first an
     * absolute path: `/root/go/bin/gopls serve`) is the Go language server to start; unset, gopls
     * is looked for (PATH, then `~/go/bin`) and used when there, with `go`.
     */
    gopls: "auto" | "off" | string[];
  };
}

/** A positive integer setting: unset or empty takes the default; anything else must parse. */
const count = positiveIntegerSetting;
const absolutePath = z
  .string()
  .refine((value) => isAbsolute(value))
  .optional()
  .catch(undefined);

/** A command line as words split on spaces (no shell); refused unless its program is an absolute path. */
function commandWords(value: string | undefined, name: string): string[] | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const words = value.trim().split(/\s+/);
  if (!isAbsolute(words[0])) throw aideError("CONFIG_INVALID", { detail: `${name}: the program must be an absolute path (got ${JSON.stringify(value)})` });
  return words;
}

/** The numeric limits, by environment name (each documented in services/tools/README.md, "Settings"). */
const LimitSettingsSchema = z.object({
  AIDE_TOOLS_MAX_CONCURRENT: count(16),
  AIDE_TOOLS_MAX_QUEUED: count(64),
  AIDE_TOOLS_MAX_QUEUED_PER_SESSION: count(16),
  AIDE_TOOLS_QUEUE_WAIT_MS: count(10_000),
  AIDE_TOOLS_MAX_PROCESSES: count(512),
  AIDE_TOOLS_MAX_MEMORY_BYTES: count(2 * 1024 ** 3),
  AIDE_TOOLS_MAX_FILE_BYTES: count(1024 ** 3),
  AIDE_TOOLS_MAX_COMMANDS: count(4),
  AIDE_TOOLS_MAX_QUEUED_COMMANDS: count(16),
  AIDE_TOOLS_MAX_QUEUED_COMMANDS_PER_SESSION: count(4),
  AIDE_TOOLS_PREPARED_JAILS: z.preprocess((value) => (value === undefined || value === "" ? undefined : Number(value)), z.number().int().min(0).default(4)),
  AIDE_TOOLS_SPAWN_HELPER: z.preprocess((value) => (value === undefined || value === "" ? undefined : value), z.enum(["on", "off"]).default("on")),
  AIDE_TOOLS_CALL_STORE_ENTRIES: count(1000),
  AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: count(60_000),
  AIDE_TOOLS_DIAGNOSTICS_IDLE_MS: count(600_000),
  AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: count(8_000),
  AIDE_TOOLS_STATE_DIR: absolutePath,
  AIDE_HOME: absolutePath,
  AIDE_TOOLS_CGROUP_ROOT: absolutePath,
});

/**
 * Reads AIDE_WORKSPACE_ROOTS, AIDE_UNSAFE_NO_SANDBOX / --unsafe-no-sandbox, the AIDE_TOOLS_* limits,
 * AIDE_TOOLS_STATE_DIR (default $AIDE_HOME/tools-state). A limit that is set but not a positive
 * integer is refused (CONFIG_INVALID) rather than silently replaced by its default.
 */
export function readSettings(env: NodeJS.ProcessEnv, argv: readonly string[]): ToolsServiceSettings {
  const parsed = LimitSettingsSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`).join("; ");
    throw aideError("CONFIG_INVALID", { detail });
  }
  const limits = parsed.data;
  const workspaceRoots = (env.AIDE_WORKSPACE_ROOTS ?? "")
    .split(":")
    .map((root) => root.trim())
    .filter((root) => root !== "" && isAbsolute(root));
  const unsafeNoSandbox = env.AIDE_UNSAFE_NO_SANDBOX === "1" || argv.includes("--unsafe-no-sandbox");
  const stateDirectory = limits.AIDE_TOOLS_STATE_DIR ?? (limits.AIDE_HOME !== undefined ? join(limits.AIDE_HOME, "tools-state") : undefined);
  return {
    workspaceRoots,
    unsafeNoSandbox,
    maxConcurrent: limits.AIDE_TOOLS_MAX_CONCURRENT,
    maxQueued: limits.AIDE_TOOLS_MAX_QUEUED,
    maxQueuedPerSession: limits.AIDE_TOOLS_MAX_QUEUED_PER_SESSION,
    queueWaitMs: limits.AIDE_TOOLS_QUEUE_WAIT_MS,
    forceJavascriptSearch: env.AIDE_TOOLS_SEARCH === "js",
    commands: {
      maxProcesses: limits.AIDE_TOOLS_MAX_PROCESSES,
      maxMemoryBytes: limits.AIDE_TOOLS_MAX_MEMORY_BYTES,
      maxFileSizeBytes: limits.AIDE_TOOLS_MAX_FILE_BYTES,
      maxConcurrent: limits.AIDE_TOOLS_MAX_COMMANDS,
      maxQueued: limits.AIDE_TOOLS_MAX_QUEUED_COMMANDS,
      maxQueuedPerSession: limits.AIDE_TOOLS_MAX_QUEUED_COMMANDS_PER_SESSION,
      limits: env.AIDE_TOOLS_COMMAND_LIMITS === "off" ? "off" : "required",
      cgroupRoot: limits.AIDE_TOOLS_CGROUP_ROOT ?? "/sys/fs/cgroup",
      preparedJails: limits.AIDE_TOOLS_PREPARED_JAILS,
      spawnHelper: limits.AIDE_TOOLS_SPAWN_HELPER === "on",
    },
    stateDirectory,
    callStoreEntries: limits.AIDE_TOOLS_CALL_STORE_ENTRIES,
    diagnostics: {
      enabled: env.AIDE_TOOLS_DIAGNOSTICS !== "off",
      timeoutMs: limits.AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS,
      idleMs: limits.AIDE_TOOLS_DIAGNOSTICS_IDLE_MS,
      waitMs: Math.min(limits.AIDE_TOOLS_DIAGNOSTICS_WAIT_MS, 20_000),
      workerScript: env.AIDE_TOOLS_DIAGNOSTICS_WORKER !== undefined && isAbsolute(env.AIDE_TOOLS_DIAGNOSTICS_WORKER) ? env.AIDE_TOOLS_DIAGNOSTICS_WORKER : undefined,
      pyrightCommand: commandWords(env.AIDE_TOOLS_PYRIGHT_COMMAND, "AIDE_TOOLS_PYRIGHT_COMMAND"),
      pyright: env.AIDE_TOOLS_PYRIGHT !== "off",
      gopls: env.AIDE_TOOLS_GOPLS === "off" ? "off" : (commandWords(env.AIDE_TOOLS_GOPLS, "AIDE_TOOLS_GOPLS") ?? "auto"),
    },
  };
}
