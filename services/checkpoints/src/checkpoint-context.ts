/** What every operation shares (configuration, compiled excludes, clock, logger), and the scan and pack-writer steps they start with. */
import type { Logger } from "pino";
import type { CheckpointConfig } from "./config.js";
import { compileRules, parseIgnoreRule, type CompiledRules, type IgnoreRule } from "./scan/exclude-rules.js";
import { PackWriter } from "./git/pack-writer.js";
import { isAbsolute } from "node:path";
import { normalizeChangedPath, scanChangedPaths } from "./scan/scan-changed-paths.js";
import { scanWorkspace, type ScanResult } from "./scan/scan-workspace.js";
import { loadCache, type ShadowRepo } from "./shadow-repo.js";
import type { FileNode } from "./scan/stat-cache-tree.js";
import type { CrossHostLock } from "./workspace/kv-workspace-lock.js";
import { StatPrefetcher } from "./scan/stat-prefetcher.js";

/** What every operation needs besides the repository: injected, no globals. */
export interface CheckpointContext {
  config: CheckpointConfig;
  excludes: IgnoreRule[];
  compiledExcludes: CompiledRules;
  logger: Logger;
  /** Wall clock in ms. */
  now: () => number;
  /** Workspace locks shared with checkpoints services on other hosts; absent: a lock file (one host). */
  crossHostLock?: CrossHostLock;
  /** The second thread for a full walk's lstats (`scan_stat_thread`); absent: one thread. Ended by CheckpointService.close. */
  statPrefetcher?: StatPrefetcher;
}

export function createCheckpointContext(config: CheckpointConfig, logger: Logger, now: () => number = Date.now, crossHostLock?: CrossHostLock): CheckpointContext {
  const sources: string[] = [];
  const excludes: IgnoreRule[] = [];
  for (const pattern of [...config.excludes, ...config.extra_excludes]) {
    const rule = parseIgnoreRule(pattern);
    if (rule) {
      excludes.push(rule);
      sources.push(pattern);
    }
  }
  return {
    config,
    excludes,
    compiledExcludes: compileRules(excludes, sources),
    logger,
    now,
    ...(crossHostLock ? { crossHostLock } : {}),
    ...(config.scan_stat_thread ? { statPrefetcher: new StatPrefetcher() } : {}),
  };
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
    ...(context.statPrefetcher ? { prefetch: context.statPrefetcher } : {}),
  };
  const relative = changedPaths === undefined ? undefined : workspaceRelative(repo.workspace, changedPaths);
  const usable = relative !== undefined && cache.commit !== undefined && cache.root.oid !== undefined;
  if (changedPaths !== undefined && relative === undefined) context.logger.debug({ workspace: repo.workspace }, "a changed path is not inside the workspace: walking the whole tree");
  return usable ? scanChangedPaths(cache.root, relative, options) : scanWorkspace(cache.root, options);
}

/**
 * Caller paths as workspace-relative paths: relative ones as given, absolute ones under the
 * workspace's real path made relative. Any other path (outside, `..`) means the caller's list
 * cannot be trusted to be complete, so undefined: the whole tree is walked instead. A path
 * with a name that did not survive UTF-8 stands for its folder.
 */
export function workspaceRelative(workspace: string, paths: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const path of paths) {
    let candidate = path;
    if (isAbsolute(path)) {
      if (!path.startsWith(`${workspace}/`)) return undefined;
      candidate = path.slice(workspace.length + 1);
    }
    const normalized = normalizeChangedPath(candidate);
    if (normalized === undefined) return undefined;
    // U+FFFD: a name the caller could not send as UTF-8 (git/raw-names.ts): rescan its folder.
    if (normalized.includes("\uFFFD")) {
      const folder = normalized.slice(0, Math.max(0, normalized.indexOf("\uFFFD"))).replace(/\/?[^/]*$/, "");
      if (folder === "") return undefined;
      out.push(folder);
      continue;
    }
    out.push(normalized);
  }
  return out;
}

/** Publishes the writer's packs and makes them readable; the trees the scan encoded go to the tree cache as they are. */
export async function finishWriter(repo: ShadowRepo, writer: PackWriter): Promise<void> {
  const names = await writer.finish();
  for (const name of names) repo.objects.addPack(name, writer.indexOf(name));
  repo.objects.rememberTrees(writer.takeTrees());
}
