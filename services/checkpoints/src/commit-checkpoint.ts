/** The commit operation: scan, write objects, record the checkpoint, answer with what was skipped. */
import { aideError, type Checkpoint, type CheckpointCommitRequest } from "@aide/contracts";
import { encodeCommit } from "./git/git-objects.js";
import { encodeCheckpointMessage, runRef } from "./checkpoint-metadata.js";
import { finishWriter, newPackWriter, scanInto, type CheckpointContext } from "./checkpoint-context.js";
import { collectSkipped } from "./scan/stat-cache.js";
import { displayPath } from "./git/raw-names.js";
import type { DirNode, FileNode } from "./scan/stat-cache-tree.js";
import { mergeFileNodes } from "./scan/scan-changed-paths.js";
import { compareTrees } from "./scan/compare-trees.js";
import type { PackWriter } from "./git/pack-writer.js";
import { writeLooseObject } from "./git/loose-object.js";
import { latestCheckpoint, setLatestCheckpoint } from "./latest-checkpoint.js";
import { ensureShadowRepo, loadCache, storeCache, type ShadowRepo } from "./shadow-repo.js";

export interface CommitResult {
  checkpoint: Checkpoint;
  skipped: { path: string; reason: string }[];
  duration_ms: number;
}

export interface CommitInput {
  session: string;
  run?: string;
  message_index?: number;
  label: string;
  changed_paths?: string[];
}

/**
 * Files that differ from the latest checkpoint. When the cache the scan started from described
 * exactly that checkpoint, the scan's own count is exact; otherwise (a crash lost the cache, a
 * scan was abandoned) the trees are compared, opening only folders whose ids differ.
 */
export async function countChangesSinceLatest(repo: ShadowRepo, root: DirNode, startedFrom?: DirNode, scanChanges?: number): Promise<number> {
  const latest = await latestCheckpoint(repo);
  if (latest?.tree === root.oid) return 0;
  if (scanChanges !== undefined && startedFrom !== undefined && (latest === undefined ? startedFrom.children.size === 0 : startedFrom.oid === latest.tree)) return scanChanges;
  const changes = await compareTrees(repo.objects, latest ? { kind: "stored", oid: latest.tree } : undefined, { kind: "scanned", node: root });
  return changes.length;
}

/** Writes the commit object for an already-stored tree and moves the run's ref and latest. Call under the lock. */
export async function recordCheckpoint(repo: ShadowRepo, context: CheckpointContext, root: DirNode, changes: number, input: CommitInput, signal: AbortSignal): Promise<Checkpoint> {
  const ref = runRef(input.session, input.run);
  const parent = await repo.refs.read(ref);
  // Strictly increasing per workspace, so listing by time keeps the order commits were made in.
  const createdMs = Math.max(context.now(), ((await latestCheckpoint(repo))?.createdMs ?? 0) + 1);
  const createdAt = new Date(createdMs);
  const metadata = {
    session: input.session,
    ...(input.run !== undefined ? { run: input.run } : {}),
    ...(input.message_index !== undefined ? { message_index: input.message_index } : {}),
    files_changed: changes,
    created_at: createdAt.toISOString(),
  };
  const content = encodeCommit({
    tree: root.oid as string,
    parents: parent && repo.objects.has(parent) ? [parent] : [],
    message: encodeCheckpointMessage(input.label, metadata),
    timestamp: Math.floor(createdAt.getTime() / 1000),
  });
  if (signal.aborted) throw signal.reason;
  const oid = await writeLooseObject(repo.gitdir, "commit", content);
  // The run's ref first, then latest: a crash between them leaves both valid.
  await repo.refs.write(ref, oid);
  await setLatestCheckpoint(repo, { id: oid, tree: root.oid as string, createdMs });
  return { id: oid, label: input.label, ...metadata };
}

/**
 * One checkpoint: scan (or only the changed paths), store new objects, commit, move refs,
 * save the stat cache. Abandoned with CHECKPOINT_TIMEOUT when `signal` fires; the previous
 * refs and cache stay as they were.
 */
export async function commitCheckpoint(repo: ShadowRepo, context: CheckpointContext, input: CommitInput, outer: AbortSignal): Promise<CommitResult> {
  const started = performance.now();
  return repo.lock.run(outer, async (signal) => {
    const held = performance.now();
    await ensureShadowRepo(repo);
    await loadCache(repo);
    const writer = newPackWriter(repo, context);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    const waited = repo.lock.waited;
    const phases: Record<string, number> = {
      wait: round(held - started),
      wait_queue: round(waited.queue),
      wait_prepare: round(waited.prepare),
      wait_flock: round(waited.flock),
      wait_kv: round(waited.kv),
    };
    let mark = held;
    const lap = (name: string) => {
      const now = performance.now();
      phases[name] = round(now - mark);
      mark = now;
    };
    lap("open");
    const progress: Array<[string, FileNode]> = [];
    let scan;
    try {
      scan = await scanInto(repo, context, writer, signal, input.changed_paths, progress);
      lap("scan");
      if (signal.aborted) throw signal.reason;
      await finishWriter(repo, writer);
      lap("pack");
    } catch (error) {
      await keepProgress(repo, context, writer, progress);
      throw error;
    }
    const previousRoot = repo.cache?.root;
    let checkpoint: Checkpoint;
    try {
      const changes = await countChangesSinceLatest(repo, scan.root, previousRoot, scan.changes);
      checkpoint = await recordCheckpoint(repo, context, scan.root, changes, input, signal);
    } catch (error) {
      // Every object of the scanned tree is stored: keep the scan for the next attempt.
      storeCache(repo, { commit: repo.cache?.commit, root: scan.root }, (e) => context.logger.warn({ err: e }, "stat cache not saved"));
      throw error;
    }
    lap("record");
    // An unchanged tree keeps the cache file as it is (the ids it holds are all still stored).
    if (scan.root !== previousRoot) storeCache(repo, { commit: checkpoint.id, root: scan.root }, (error) => context.logger.warn({ err: error }, "stat cache not saved"));
    else repo.cache = { commit: checkpoint.id, root: scan.root };
    lap("cache");
    const duration = performance.now() - started;
    context.logger.debug({ workspace: repo.workspace, checkpoint: checkpoint.id, changes: checkpoint.files_changed, ms: Math.round(duration), phases }, "checkpoint committed");
    return { checkpoint, skipped: collectSkipped(scan.root).map((entry) => ({ ...entry, path: displayPath(entry.path) })), duration_ms: Math.round(duration * 100) / 100 };
  });
}

/** After an abandoned scan: store the blobs already hashed and remember them in the cache. */
async function keepProgress(repo: ShadowRepo, context: CheckpointContext, writer: PackWriter, progress: Array<[string, FileNode]>): Promise<void> {
  if (progress.length === 0 || repo.cache === undefined) {
    writer.discard();
    return;
  }
  try {
    await finishWriter(repo, writer);
    const root = mergeFileNodes(repo.cache.root, progress);
    storeCache(repo, { commit: repo.cache.commit, root }, (error) => context.logger.warn({ err: error }, "stat cache not saved"));
    context.logger.info({ workspace: repo.workspace, files: progress.length }, "checkpoint abandoned; the files hashed so far are kept for the next attempt");
  } catch (error) {
    writer.discard();
    context.logger.warn({ err: error }, "could not keep the progress of an abandoned checkpoint");
  }
}

/** A signal that fires with `reason()` after `ms`, or with ABORTED when `parent` does. */
export function timeoutSignal(parent: AbortSignal, ms: number, reason: () => Error): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  const onParent = () => controller.abort(aideError("ABORTED"));
  if (parent.aborted) onParent();
  else parent.addEventListener("abort", onParent, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener("abort", onParent);
    },
  };
}
