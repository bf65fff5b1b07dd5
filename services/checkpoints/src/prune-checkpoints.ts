/** The prune operation: keep the newest runs, repack what is reachable, delete the rest. */
import { stat } from "node:fs/promises";
import type { CheckpointUsage } from "@aide/contracts";
import type { CheckpointContext } from "./checkpoint-context.js";
import { runsPrefix } from "./checkpoint-metadata.js";
import { listStoredCheckpoints, readCheckpoint } from "./list-checkpoints.js";
import { repack } from "./repack.js";
import { countLooseObjects, diskUsage } from "./repository-usage.js";
import { ensureShadowRepo, flushCache, type ShadowRepo } from "./shadow-repo.js";

export interface PruneInput {
  keep_tasks?: number;
  session?: string;
  delete_session: boolean;
}

export async function repositoryUsage(repo: ShadowRepo): Promise<CheckpointUsage> {
  const exists = await stat(repo.gitdir).then(
    () => true,
    () => false,
  );
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
    for (const run of runs.filter((r) => r.session === input.session)) {
      await repo.refs.delete(run.ref);
      dropped++;
    }
    remaining = runs.filter((r) => r.session !== input.session);
    if (input.keep_tasks === undefined) return dropped;
  }
  const keep = input.keep_tasks ?? context.config.keep_tasks;
  const candidates = remaining.filter((r) => input.session === undefined || r.session === input.session).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  for (const run of candidates.slice(keep)) {
    await repo.refs.delete(run.ref);
    dropped++;
  }
  return dropped;
}

export async function pruneCheckpoints(repo: ShadowRepo, context: CheckpointContext, input: PruneInput, signal: AbortSignal): Promise<{ before: CheckpointUsage; after: CheckpointUsage }> {
  const before = await repositoryUsage(repo);
  if (before.bytes === 0) return { before, after: before };
  await repo.lock.run(signal, async (bounded) => {
    await ensureShadowRepo(repo);
    // The cache file must not name objects the repack is about to drop.
    await flushCache(repo);
    const dropped = await dropRuns(repo, context, input);
    const packed = await repack(repo, context, bounded);
    context.logger.info({ workspace: repo.workspace, dropped_tasks: dropped, ...packed }, "checkpoints pruned");
  });
  return { before, after: await repositoryUsage(repo) };
}
