import { resolve } from "node:path";
import { aideError, defaultInstructionsBudgetTokens, InstructionsPolicySchema, type InstructionsPolicy } from "@aide/contracts";
import { backpressureFromEnv, type BackpressureSettings } from "./backpressure-settings.js";

/** Everything the orchestrator reads from its environment, parsed once at start. */
export interface OrchestratorConfig {
  /** Model id used when a start request names none (`AIDE_DEFAULT_MODEL`); undefined: the model service's default. */
  defaultModel?: string;
  /** A pending approval is denied after this long (`AIDE_APPROVAL_TIMEOUT_MS`, default 10 minutes). */
  approvalTimeoutMs: number;
  /** Absolute workspace roots a session may use (`AIDE_WORKSPACE_ROOTS`, colon-separated); empty: any. */
  workspaceRoots: string[];
  /** The user's home (HOME): `/`, it and its Documents, Desktop, Downloads are refused as workspaces. */
  userHome?: string;
  /** `AIDE_ALLOW_HOME_WORKSPACE=1` (aide up --allow-home-workspace): accept ~/Documents, ~/Desktop, ~/Downloads. */
  allowHomeWorkspace?: boolean;
  /** `AIDE_UNSANDBOXED_SERVICES=1`: said in every `run.created`. */
  unsandboxed: boolean;
  /** Default iteration budget per run: 25. */
  maxIterations: number;
  /** Wall-clock budget per run (`AIDE_RUN_BUDGET_MS`, default 1 hour). */
  runBudgetMs: number;
  /** Context budget in characters when the model does not say (`AIDE_CONTEXT_CHARS`). */
  contextChars: number;
  /** `AIDE_CODE_MAP_IN_PREFIX=1`: the first turn's stable prefix carries a small code map of the workspace (off by default). */
  codeMapInPrefix?: boolean;
  /**
   * This instance's identity (`AIDE_ORCHESTRATOR_ID`): runs are owned by it, and a restart with the
   * same id resumes them at once. Unset (empty here), main claims `orchestrator-<host>-<n>` on the
   * bus (instance-id-claim.ts), unique among live instances.
   */
  instanceId: string;
  /** How long a run's ownership lasts without renewal (`AIDE_LEASE_MS`); another instance takes over after it. */
  leaseMs: number;
  modelTimeoutMs: number;
  toolTimeoutMs: number;
  checkpointTimeoutMs: number;
  /** Session writes failing this long pause the run (`AIDE_STORE_PAUSE_AFTER_MS`, default 3 s); it resumes when a write lands. */
  storePauseAfterMs: number;
  /** A run paused on a full disk tries its checkpoint again this often (`AIDE_DISK_FULL_RETRY_MS`, default 5 s). */
  diskFullRetryMs: number;
  /** How long a run waits for its model's first capability probe (`AIDE_MODEL_PROBE_TIMEOUT_MS`, default 180 s). */
  probeTimeoutMs?: number;
  /** Project instructions (AGENTS.md…): `AIDE_INSTRUCTIONS` ask (default) | trust | ignore, the person's config key `instructions` passed by `aide up`. */
  instructions?: InstructionsPolicy;
  /** The prompt's budget for project instructions in tokens (`AIDE_INSTRUCTIONS_BUDGET_TOKENS`, default 1500; the compact tier takes at most 400). */
  instructionsBudgetTokens?: number;
  /** Admission, busy retries and heartbeats (config/backpressure-settings.ts); defaults when absent. */
  backpressure?: BackpressureSettings;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw aideError("CONFIG_INVALID", { detail: `${name} must be a positive number, got ${raw}` });
  return value;
}

function instructionsPolicyFrom(env: NodeJS.ProcessEnv): InstructionsPolicy {
  const raw = env.AIDE_INSTRUCTIONS;
  if (raw === undefined || raw === "") return "ask";
  const parsed = InstructionsPolicySchema.safeParse(raw);
  if (!parsed.success) throw aideError("CONFIG_INVALID", { detail: `AIDE_INSTRUCTIONS must be ask, trust or ignore, got ${raw}` });
  return parsed.data;
}

/** At most 20,000 tokens: the approval shows the person up to 100,000 characters, more than the prompt may take. */
function instructionsBudgetFrom(env: NodeJS.ProcessEnv): number {
  const budget = Math.floor(positive(env, "AIDE_INSTRUCTIONS_BUDGET_TOKENS", defaultInstructionsBudgetTokens));
  if (budget > 20_000) throw aideError("CONFIG_INVALID", { detail: `AIDE_INSTRUCTIONS_BUDGET_TOKENS is at most 20000, got ${budget}` });
  return budget;
}

function instanceIdFrom(env: NodeJS.ProcessEnv): string {
  if (!env.AIDE_ORCHESTRATOR_ID) return "";
  const raw = env.AIDE_ORCHESTRATOR_ID;
  const safe = raw.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 64);
  if (safe === "") throw aideError("CONFIG_INVALID", { detail: "AIDE_ORCHESTRATOR_ID must contain letters or digits" });
  return safe;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): OrchestratorConfig {
  const roots = (env.AIDE_WORKSPACE_ROOTS ?? "")
    .split(":")
    .map((root) => root.trim())
    .filter((root) => root.length > 0)
    .map((root) => resolve(root));
  return {
    defaultModel: env.AIDE_DEFAULT_MODEL || undefined,
    approvalTimeoutMs: positive(env, "AIDE_APPROVAL_TIMEOUT_MS", 600_000),
    workspaceRoots: roots,
    userHome: env.HOME || undefined,
    allowHomeWorkspace: env.AIDE_ALLOW_HOME_WORKSPACE === "1",
    unsandboxed: env.AIDE_UNSANDBOXED_SERVICES === "1",
    maxIterations: positive(env, "AIDE_MAX_ITERATIONS", 25),
    runBudgetMs: positive(env, "AIDE_RUN_BUDGET_MS", 3_600_000),
    contextChars: positive(env, "AIDE_CONTEXT_CHARS", 120_000),
    codeMapInPrefix: env.AIDE_CODE_MAP_IN_PREFIX === "1",
    leaseMs: positive(env, "AIDE_LEASE_MS", 30_000),
    instanceId: instanceIdFrom(env),
    modelTimeoutMs: positive(env, "AIDE_MODEL_TIMEOUT_MS", 600_000),
    toolTimeoutMs: positive(env, "AIDE_TOOL_TIMEOUT_MS", 900_000),
    checkpointTimeoutMs: positive(env, "AIDE_CHECKPOINT_TIMEOUT_MS", 60_000),
    probeTimeoutMs: positive(env, "AIDE_MODEL_PROBE_TIMEOUT_MS", 180_000),
    storePauseAfterMs: positive(env, "AIDE_STORE_PAUSE_AFTER_MS", 3_000),
    diskFullRetryMs: positive(env, "AIDE_DISK_FULL_RETRY_MS", 5_000),
    instructions: instructionsPolicyFrom(env),
    instructionsBudgetTokens: instructionsBudgetFrom(env),
    backpressure: backpressureFromEnv(env),
  };
}
