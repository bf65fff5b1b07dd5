import { aideError, type Checkpoint, type CheckpointCommitRequest } from "@aide/contracts";
import { encodeCommit } from "./git-objects.js";
import { encodeCheckpointMessage, latestRef, runRef } from "./checkpoint-metadata.js";
import { finishWriter, newPackWriter, scanInto, type CheckpointContext } from "./checkpoint-context.js";
import { collectSkipped, type DirNode } from "./stat-cache.js";
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

/** Writes the commit object for an already-stored tree and moves the run's ref and latest. Call under the lock. */
export async function recordCheckpoint(repo: ShadowRepo, context: CheckpointContext, root: DirNode, changes: number, input: CommitInput, signal: AbortSignal): Promise<Checkpoint> {
  const writer = newPackWriter(repo, context);
  const ref = runRef(input.session, input.run);
  const parent = await repo.refs.read(ref);
  const createdAt = new Date(context.now());
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
  const oid = await writer.write("commit", content);
  if (signal.aborted) throw signal.reason;
  await finishWriter(repo, writer);
  // The run's ref first, then latest: a crash between them leaves both valid.
  await repo.refs.write(ref, oid);
  await repo.refs.write(latestRef, oid);
  return { id: oid, label: input.label, ...metadata };
}

/**
 * One checkpoint: scan (or only the changed paths), store new objects, commit, move refs,
 * save the stat cache. Abandoned with CHECKPOINT_TIMEOUT when `signal` fires; the previous
 * refs and cache stay as they were.
 */
export async function commitCheckpoint(repo: ShadowRepo, context: CheckpointContext, input: CommitInput, signal: AbortSignal): Promise<CommitResult> {
  const started = performance.now();
  return repo.lock.run(signal, async () => {
    await ensureShadowRepo(repo);
    await loadCache(repo);
    const writer = newPackWriter(repo, context);
    const phases: Record<string, number> = { wait: performance.now() - started };
    let mark = performance.now();
    const lap = (name: string) => { const now = performance.now(); phases[name] = Math.round((now - mark) * 10) / 10; mark = now; };
    let scan;
    try {
      scan = await scanInto(repo, context, writer, signal, input.changed_paths);
      lap("scan");
      if (signal.aborted) throw signal.reason;
      await finishWriter(repo, writer);
      lap("pack");
    } catch (error) {
      writer.discard();
      throw error;
    }
    const previousRoot = repo.cache?.root;
    const checkpoint = await recordCheckpoint(repo, context, scan.root, scan.changes, input, signal);
    lap("record");
    // An unchanged tree keeps the cache file as it is (the ids it holds are all still stored).
    if (scan.root !== previousRoot) storeCache(repo, { commit: checkpoint.id, root: scan.root }, (error) => context.logger.warn({ err: error }, "stat cache not saved"));
    else repo.cache = { commit: checkpoint.id, root: scan.root };
    lap("cache");
    const duration = performance.now() - started;
    context.logger.debug({ workspace: repo.workspace, checkpoint: checkpoint.id, changes: scan.changes, ms: Math.round(duration), phases }, "checkpoint committed");
    return { checkpoint, skipped: collectSkipped(scan.root), duration_ms: Math.round(duration * 100) / 100 };
  });
}

export function timeoutSignal(parent: AbortSignal, ms: number, workspace: string): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(aideError("CHECKPOINT_TIMEOUT", { ms, workspace })), ms);
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
