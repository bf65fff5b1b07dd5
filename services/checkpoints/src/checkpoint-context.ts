import type { Logger } from "pino";
import type { CheckpointConfig } from "./config.js";
import { compileRules, parseIgnoreRule, type CompiledRules, type IgnoreRule } from "./exclude-rules.js";
import { PackWriter } from "./pack-writer.js";
import { scanChangedPaths } from "./scan-changed-paths.js";
import { scanWorkspace, type ScanResult } from "./scan-workspace.js";
import { loadCache, type ShadowRepo } from "./shadow-repo.js";
import type { FileNode } from "./stat-cache.js";

/** What every operation needs besides the repository: injected, no globals. */
export interface CheckpointContext {
  config: CheckpointConfig;
  excludes: IgnoreRule[];
  compiledExcludes: CompiledRules;
  logger: Logger;
  /** Wall clock in ms. */
  now: () => number;
}

export function createCheckpointContext(config: CheckpointConfig, logger: Logger, now: () => number = Date.now): CheckpointContext {
  const sources: string[] = [];
  const excludes: IgnoreRule[] = [];
  for (const pattern of [...config.excludes, ...config.extra_excludes]) {
    const rule = parseIgnoreRule(pattern);
    if (rule) { excludes.push(rule); sources.push(pattern); }
  }
  return { config, excludes, compiledExcludes: compileRules(excludes, sources), logger, now };
}

export function newPackWriter(repo: ShadowRepo, context: CheckpointContext, level = context.config.compression_level): PackWriter {
  return new PackWriter(repo.objects.packDirectory, level, (oid) => repo.objects.has(oid));
}

/**
 * Scans the workspace (or only `changedPaths` when the cache already describes it), storing
 * new blobs and trees in `writer`. The caller finishes the writer before trusting the result.
 */
export async function scanInto(
  repo: ShadowRepo,
  context: CheckpointContext,
  writer: PackWriter,
  signal: AbortSignal,
  changedPaths?: readonly string[],
  progress?: Array<[string, FileNode]>,
): Promise<ScanResult> {
  const cache = await loadCache(repo);
  const options = {
    workspace: repo.workspace,
    excludes: context.compiledExcludes,
    respectGitignore: context.config.respect_gitignore,
    maxFileBytes: context.config.max_file_bytes,
    sink: writer,
    signal,
    now: context.now,
    progress,
  };
  const usable = changedPaths !== undefined && cache.commit !== undefined && cache.root.oid !== undefined;
  return usable ? scanChangedPaths(cache.root, changedPaths, options) : scanWorkspace(cache.root, options);
}

/** Publishes the writer's packs and makes them readable. */
export async function finishWriter(repo: ShadowRepo, writer: PackWriter): Promise<void> {
  const names = await writer.finish();
  for (const name of names) repo.objects.addPack(name);
}
