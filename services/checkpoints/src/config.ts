/** The service's configuration: file, then environment. */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { aideError } from "@aide/contracts";

/** Folders and files never captured unless the configuration replaces this list. */
export const defaultExcludes = [
  "node_modules",
  "bower_components",
  "dist",
  "build",
  "out",
  "target",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".cache",
  ".gradle",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".venv",
  "venv",
  "coverage",
  ".DS_Store",
];

/** Commits, restores, diffs handled at once: the runtime's default; past it they wait their turn. */
export const defaultMaxConcurrent = 64;
/** Requests waiting at most: a burst of this many sessions' checkpoints waits in turn instead of being refused BUSY. */
export const defaultMaxQueued = 1024;

export const CheckpointConfigSchema = z
  .object({
    /** Realpaths under which a workspace may live; empty means any directory. */
    workspace_roots: z.array(z.string().min(1)).default([]),
    /** Patterns as in .gitignore without negation: `name`, `dir/`, `/rooted/path`, `*.log`. */
    excludes: z.array(z.string().min(1)).default(defaultExcludes),
    /** Added to `excludes` (so the defaults stay). */
    extra_excludes: z.array(z.string().min(1)).default([]),
    /** Files larger than this are not captured and are listed as skipped. */
    max_file_bytes: z
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    /** Also skip what the workspace's .gitignore files ignore. */
    respect_gitignore: z.boolean().default(false),
    /** A commit that takes longer is abandoned with CHECKPOINT_TIMEOUT. */
    commit_timeout_ms: z.number().int().positive().default(15_000),
    /** `prune` without keep_tasks keeps this many tasks (runs) per workspace. */
    keep_tasks: z.number().int().positive().default(20),
    /** zlib level for stored objects (1 = fastest). `prune` repacks at `repack_level`. */
    compression_level: z.number().int().min(0).max(9).default(1),
    repack_level: z.number().int().min(0).max(9).default(6),
    /** The cross-host workspace lock: renewed every third of this; a holder silent this long loses it. */
    lock_lease_ms: z.number().int().min(500).default(15_000),
    /** A full walk of a large tree (2,000 cached paths or more) lstats half of them on a worker thread. */
    scan_stat_thread: z.boolean().default(true),
    /**
     * Admission (the runtime's fair queue): requests handled at once, and waiting at most over all
     * sessions (past it, or after 10 s of waiting, BUSY and the caller backs off). A session has
     * one checkpoint in flight at a time and a waiting request is a small parsed body, so the
     * queue is sized to the sessions that may checkpoint together, not to 4 × the slots.
     */
    max_concurrent: z.number().int().positive().default(defaultMaxConcurrent),
    max_queued: z.number().int().positive().default(defaultMaxQueued),
  })
  .strict();
export type CheckpointConfig = z.infer<typeof CheckpointConfigSchema>;

const list = (value: string | undefined) =>
  (value ?? "")
    .split(":")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
const commaList = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/**
 * Reads the configuration: the JSON file named by AIDE_CHECKPOINT_CONFIG (validated), then the
 * environment variables, which win. Throws CONFIG_INVALID with the reason.
 */
export function loadCheckpointConfig(env: NodeJS.ProcessEnv = process.env, readFile: (path: string) => string = (p) => readFileSync(p, "utf8")): CheckpointConfig {
  let raw: Record<string, unknown> = {};
  const file = env.AIDE_CHECKPOINT_CONFIG;
  if (file) {
    try {
      raw = JSON.parse(readFile(file)) as Record<string, unknown>;
    } catch (error) {
      throw aideError("CONFIG_INVALID", { detail: `${file}: ${(error as Error).message}` });
    }
  }
  const overrides: Record<string, unknown> = {};
  if (env.AIDE_WORKSPACE_ROOTS !== undefined) overrides.workspace_roots = list(env.AIDE_WORKSPACE_ROOTS);
  if (env.AIDE_CHECKPOINT_EXCLUDES !== undefined) overrides.excludes = commaList(env.AIDE_CHECKPOINT_EXCLUDES);
  if (env.AIDE_CHECKPOINT_EXTRA_EXCLUDES !== undefined) overrides.extra_excludes = commaList(env.AIDE_CHECKPOINT_EXTRA_EXCLUDES);
  if (env.AIDE_CHECKPOINT_MAX_FILE_BYTES) overrides.max_file_bytes = Number(env.AIDE_CHECKPOINT_MAX_FILE_BYTES);
  if (env.AIDE_CHECKPOINT_RESPECT_GITIGNORE) overrides.respect_gitignore = ["1", "true", "yes"].includes(env.AIDE_CHECKPOINT_RESPECT_GITIGNORE);
  if (env.AIDE_CHECKPOINT_SCAN_STAT_THREAD) overrides.scan_stat_thread = ["1", "true", "yes"].includes(env.AIDE_CHECKPOINT_SCAN_STAT_THREAD);
  if (env.AIDE_CHECKPOINT_TIMEOUT_MS) overrides.commit_timeout_ms = Number(env.AIDE_CHECKPOINT_TIMEOUT_MS);
  if (env.AIDE_CHECKPOINT_KEEP_TASKS) overrides.keep_tasks = Number(env.AIDE_CHECKPOINT_KEEP_TASKS);
  if (env.AIDE_CHECKPOINT_LOCK_LEASE_MS) overrides.lock_lease_ms = Number(env.AIDE_CHECKPOINT_LOCK_LEASE_MS);
  if (env.AIDE_CHECKPOINT_MAX_CONCURRENT) overrides.max_concurrent = Number(env.AIDE_CHECKPOINT_MAX_CONCURRENT);
  if (env.AIDE_CHECKPOINT_MAX_QUEUED) overrides.max_queued = Number(env.AIDE_CHECKPOINT_MAX_QUEUED);
  const parsed = CheckpointConfigSchema.safeParse({ ...raw, ...overrides });
  if (!parsed.success) {
    throw aideError("CONFIG_INVALID", { detail: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
  }
  return parsed.data;
}
