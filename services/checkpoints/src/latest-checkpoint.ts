/** The latest checkpoint of a workspace: what its working tree is compared against before a restore. */
import { latestRef } from "./checkpoint-metadata.js";
import { readCheckpoint } from "./list-checkpoints.js";
import type { ShadowRepo } from "./shadow-repo.js";

export interface LatestCheckpoint {
  id: string;
  tree: string;
  createdMs: number;
}

/**
 * The workspace's latest checkpoint (last commit or restore), remembered in memory after the
 * first read: every commit needs its tree and time, and reading it each time costs syscalls.
 */
export async function latestCheckpoint(repo: ShadowRepo): Promise<LatestCheckpoint | undefined> {
  if (repo.latest !== undefined) return repo.latest ?? undefined;
  const id = await repo.refs.read(latestRef);
  const stored = id ? await readCheckpoint(repo, id).catch(() => undefined) : undefined;
  const latest = stored && id ? { id, tree: stored.tree, createdMs: Date.parse(stored.checkpoint.created_at) || 0 } : undefined;
  repo.latest = latest ?? null;
  return latest;
}

/** Moves refs/aide/latest and the remembered copy together. */
export async function setLatestCheckpoint(repo: ShadowRepo, latest: LatestCheckpoint): Promise<void> {
  await repo.refs.write(latestRef, latest.id);
  repo.latest = latest;
}
