import { isAbsolute, join } from "node:path";

export interface ToolsServiceSettings {
  workspaceRoots: string[];
  /** Only then may commands run without bubblewrap. */
  unsafeNoSandbox: boolean;
  maxConcurrent: number;
  /** AIDE_TOOLS_SEARCH=js: use the JavaScript search even when ripgrep is present (tests, comparison). */
  forceJavascriptSearch: boolean;
  /** Per-command limits (services/tools/README.md, "Settings"). */
  commands: {
    maxProcesses: number;
    maxMemoryBytes: number;
    maxFileSizeBytes: number;
    maxConcurrent: number;
    maxQueued: number;
    /** "required": a command whose cgroup limits cannot be applied is refused; "off": it runs without them. */
    limits: "required" | "off";
    /** Where the cgroup v1 hierarchies are mounted. */
    cgroupRoot: string;
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
  };
}

function positiveInteger(value: string | undefined, fallback: number): number {
  const parsed = Number(value ?? fallback);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/**
 * Reads AIDE_WORKSPACE_ROOTS, AIDE_UNSAFE_NO_SANDBOX / --unsafe-no-sandbox, AIDE_TOOLS_MAX_CONCURRENT,
 * the AIDE_TOOLS_* command limits, AIDE_TOOLS_STATE_DIR (default $AIDE_HOME/tools-state).
 */
export function readSettings(env: NodeJS.ProcessEnv, argv: readonly string[]): ToolsServiceSettings {
  const workspaceRoots = (env.AIDE_WORKSPACE_ROOTS ?? "")
    .split(":")
    .map((root) => root.trim())
    .filter((root) => root !== "" && isAbsolute(root));
  const unsafeNoSandbox = env.AIDE_UNSAFE_NO_SANDBOX === "1" || argv.includes("--unsafe-no-sandbox");
  const stateDirectory = env.AIDE_TOOLS_STATE_DIR !== undefined && isAbsolute(env.AIDE_TOOLS_STATE_DIR)
    ? env.AIDE_TOOLS_STATE_DIR
    : env.AIDE_HOME !== undefined && isAbsolute(env.AIDE_HOME) ? join(env.AIDE_HOME, "tools-state") : undefined;
  return {
    workspaceRoots,
    unsafeNoSandbox,
    maxConcurrent: positiveInteger(env.AIDE_TOOLS_MAX_CONCURRENT, 16),
    forceJavascriptSearch: env.AIDE_TOOLS_SEARCH === "js",
    commands: {
      maxProcesses: positiveInteger(env.AIDE_TOOLS_MAX_PROCESSES, 512),
      maxMemoryBytes: positiveInteger(env.AIDE_TOOLS_MAX_MEMORY_BYTES, 2 * 1024 ** 3),
      maxFileSizeBytes: positiveInteger(env.AIDE_TOOLS_MAX_FILE_BYTES, 1024 ** 3),
      maxConcurrent: positiveInteger(env.AIDE_TOOLS_MAX_COMMANDS, 4),
      maxQueued: positiveInteger(env.AIDE_TOOLS_MAX_QUEUED_COMMANDS, 16),
      limits: env.AIDE_TOOLS_COMMAND_LIMITS === "off" ? "off" : "required",
      cgroupRoot: env.AIDE_TOOLS_CGROUP_ROOT !== undefined && isAbsolute(env.AIDE_TOOLS_CGROUP_ROOT) ? env.AIDE_TOOLS_CGROUP_ROOT : "/sys/fs/cgroup",
    },
    stateDirectory,
    callStoreEntries: positiveInteger(env.AIDE_TOOLS_CALL_STORE_ENTRIES, 1000),
    diagnostics: {
      enabled: env.AIDE_TOOLS_DIAGNOSTICS !== "off",
      timeoutMs: positiveInteger(env.AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS, 60_000),
      idleMs: positiveInteger(env.AIDE_TOOLS_DIAGNOSTICS_IDLE_MS, 600_000),
      waitMs: Math.min(positiveInteger(env.AIDE_TOOLS_DIAGNOSTICS_WAIT_MS, 8_000), 20_000),
      workerScript: env.AIDE_TOOLS_DIAGNOSTICS_WORKER !== undefined && isAbsolute(env.AIDE_TOOLS_DIAGNOSTICS_WORKER) ? env.AIDE_TOOLS_DIAGNOSTICS_WORKER : undefined,
    },
  };
}
