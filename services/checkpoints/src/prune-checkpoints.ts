/** The prune operation: keep the newest runs, repack what is reachable, delete the rest. */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { CheckpointUsage } from "@aide/contracts";
import type { CheckpointContext } from "./checkpoint-context.js";
import { latestRef, parseCommit, runsPrefix } from "./checkpoint-metadata.js";
import { decodeTree } from "./git/git-objects.js";
import { listStoredCheckpoints, readCheckpoint } from "./list-checkpoints.js";
import { PackWriter } from "./git/pack-writer.js";
import { countLooseObjects, diskUsage } from "./repository-usage.js";
import { ensureShadowRepo, flushCache, loadCache, type ShadowRepo } from "./shadow-repo.js";
import type { DirNode } from "./scan/stat-cache-tree.js";

export interface PruneInput {
  keep_tasks?: number;
  session?: string;
  delete_session: boolean;
}

export async function repositoryUsage(repo: ShadowRepo): Promise<CheckpointUsage> {
  const exists = await stat(repo.gitdir).then(() => true, () => false);
  if (!exists) return { bytes: 0, checkpoints: 0, packs: 0, loose_objects: 0 };
  const [usage, checkpoints, loose] = await Promise.all([diskUsage(repo.gitdir), listStoredCheckpoints(repo), countLooseObjects(repo.gitdir)]);
  return { bytes: usage.bytes, checkpoints: checkpoints.length, packs: repo.objects.packNames().length, loose_objects: loose };
}

/** Deletes the run refs prune does not keep: all of a deleted session's, then all but the newest `keep` tasks. */
async function dropRuns(repo: ShadowRepo, context: CheckpointContext, input: PruneInput): Promise<number> {
  const runs = await Promise.all(
    (await repo.refs.list(runsPrefix)).map(async ({ ref, oid }) => {
      const stored = await readCheckpoint(repo, oid).catch(() => undefined);
      return { ref, session: ref.split("/")[3] ?? "", createdAt: stored?.checkpoint.created_at ?? "" };
    }),
  );
  let dropped = 0;
  let remaining = runs;
  if (input.delete_session && input.session !== undefined) {
    for (const run of runs.filter((r) => r.session === input.session)) { await repo.refs.delete(run.ref); dropped++; }
    remaining = runs.filter((r) => r.session !== input.session);
    if (input.keep_tasks === undefined) return dropped;
  }
  const keep = input.keep_tasks ?? context.config.keep_tasks;
  const candidates = remaining.filter((r) => input.session === undefined || r.session === input.session).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  for (const run of candidates.slice(keep)) { await repo.refs.delete(run.ref); dropped++; }
  return dropped;
}

/** Every object reachable from the refs, latest, and the stat cache (whose ids must stay valid). */
async function reachableObjects(repo: ShadowRepo): Promise<Map<string, true>> {
  const reachable = new Map<string, true>();
  const trees: string[] = [];
  const roots = (await repo.refs.list(runsPrefix)).map((r) => r.oid);
  const latest = await repo.refs.read(latestRef);
  if (latest) roots.push(latest);
  while (roots.length > 0) {
    const oid = roots.pop() as string;
    if (reachable.has(oid) || !repo.objects.has(oid)) continue;
    reachable.set(oid, true);
    const commit = parseCommit((await repo.objects.read(oid)).content);
    trees.push(commit.tree);
    roots.push(...commit.parents);
  }
  const cacheOids: string[] = [];
  const collect = (dir: DirNode) => {
    if (dir.oid) cacheOids.push(dir.oid);
    for (const node of dir.children.values()) {
      if (node.kind === "dir") collect(node);
      else if (node.kind === "file") cacheOids.push(node.oid);
    }
  };
  if (repo.cache) collect(repo.cache.root);
  while (trees.length > 0) {
    const oid = trees.pop() as string;
    if (reachable.has(oid)) continue;
    reachable.set(oid, true);
    for (const entry of decodeTree((await repo.objects.read(oid)).content)) {
      if (entry.mode === "40000") trees.push(entry.oid);
      else reachable.set(entry.oid, true);
    }
  }
  for (const oid of cacheOids) if (repo.objects.has(oid)) reachable.set(oid, true);
  return reachable;
}

/**
 * Writes every reachable object into one new pack (at the repack compression level), then
 * removes the old packs, loose objects and temp files. The new pack is in place before anything
 * is deleted, so a crash at any point leaves a readable repository.
 */
export async function repack(repo: ShadowRepo, context: CheckpointContext, signal: AbortSignal): Promise<void> {
  repo.objects.reload();
  await loadCache(repo);
  const reachable = await reachableObjects(repo);
  const writer = new PackWriter(repo.objects.packDirectory, context.config.repack_level);
  for (const oid of reachable.keys()) {
    if (signal.aborted) throw signal.reason;
    const object = await repo.objects.read(oid);
    if (object.type === "tag") continue;
    await writer.write(object.type, object.content, oid);
  }
  const kept = new Set(await writer.finish());
  for (const file of await readdir(repo.objects.packDirectory)) {
    const base = file.replace(/\.(pack|idx|keep|rev)$/, "");
    if (!kept.has(base)) await rm(join(repo.objects.packDirectory, file), { force: true });
  }
  await rm(join(repo.gitdir, "tmp"), { recursive: true, force: true });
  const objectsDir = join(repo.gitdir, "objects");
  for (const entry of await readdir(objectsDir)) {
    if (/^[0-9a-f]{2}$/.test(entry)) await rm(join(objectsDir, entry), { recursive: true, force: true });
  }
  repo.objects.reload();
}

export async function pruneCheckpoints(repo: ShadowRepo, context: CheckpointContext, input: PruneInput, signal: AbortSignal): Promise<{ before: CheckpointUsage; after: CheckpointUsage }> {
  const before = await repositoryUsage(repo);
  if (before.bytes === 0) return { before, after: before };
  await repo.lock.run(signal, async () => {
    await ensureShadowRepo(repo);
    // The cache file must not name objects the repack is about to drop.
    await flushCache(repo);
    const dropped = await dropRuns(repo, context, input);
    await repack(repo, context, signal);
    context.logger.info({ workspace: repo.workspace, dropped_tasks: dropped }, "checkpoints pruned");
  });
  return { before, after: await repositoryUsage(repo) };
}
