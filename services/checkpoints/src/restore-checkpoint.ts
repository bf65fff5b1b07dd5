/** The restore operation: plan, safety checkpoint, apply, record. */
import { aideError, type Checkpoint, type RestoreMode } from "@aide/contracts";
import { join } from "node:path";
import { applyRestore } from "./apply-restore.js";
import { latestCheckpoint, setLatestCheckpoint } from "./latest-checkpoint.js";
import { finishWriter, newPackWriter, scanInto, type CheckpointContext } from "./checkpoint-context.js";
import { countChangesSinceLatest, recordCheckpoint } from "./commit-checkpoint.js";
import { compareTrees, type TreeChange } from "./scan/compare-trees.js";
import { isPathExcluded } from "./path-filter.js";
import { readCheckpoint } from "./list-checkpoints.js";
import { mergeFileNodes, scanChangedPaths } from "./scan/scan-changed-paths.js";
import { checkSignal, fileNodeOf, type ScanResult } from "./scan/scan-workspace.js";
import { ensureShadowRepo, loadCache, storeCache, type ShadowRepo } from "./shadow-repo.js";
import type { DirNode, FileNode } from "./scan/stat-cache-tree.js";
import { displayPath } from "./git/raw-names.js";
import { treeFromTarget } from "./restored-tree.js";

export interface RestoreInput {
  session: string;
  checkpoint: string;
  mode: RestoreMode;
  dry_run: boolean;
  force: boolean;
}

export interface RestorePlan {
  modified: string[];
  created_since: string[];
  deleted_since: string[];
}

export interface RestoreResult {
  checkpoint: Checkpoint;
  plan: RestorePlan;
  applied: boolean;
  safety_checkpoint?: string;
  workspace_changed?: boolean;
}

export function planOf(changes: readonly TreeChange[]): RestorePlan {
  return {
    modified: changes.filter((c) => c.status === "modified").map((c) => displayPath(c.path)),
    created_since: changes.filter((c) => c.status === "added").map((c) => displayPath(c.path)),
    deleted_since: changes.filter((c) => c.status === "deleted").map((c) => displayPath(c.path)),
  };
}

/** Scans the working tree under the lock and stores what changed, keeping the cache's commit. */
export async function scanWorkingTree(repo: ShadowRepo, context: CheckpointContext, signal: AbortSignal): Promise<ScanResult> {
  await ensureShadowRepo(repo);
  const cache = await loadCache(repo);
  const writer = newPackWriter(repo, context);
  const scan = await scanInto(repo, context, writer, signal);
  await finishWriter(repo, writer);
  if (scan.root !== cache.root) storeCache(repo, { commit: cache.commit, root: scan.root }, (error) => context.logger.warn({ err: error }, "stat cache not saved"));
  return scan;
}

/**
 * Restores a checkpoint. `task` touches no file (the orchestrator truncates the transcript to
 * the checkpoint's message_index). Otherwise the plan is computed from a fresh scan; a dry run
 * returns it; a real run refuses with WORKSPACE_CHANGED when the workspace differs from the
 * latest checkpoint unless forced, and a forced run first records a safety checkpoint.
 */
export async function restoreCheckpoint(repo: ShadowRepo, context: CheckpointContext, input: RestoreInput, signal: AbortSignal): Promise<RestoreResult> {
  const target = await readCheckpoint(repo, input.checkpoint);
  if (target.checkpoint.session !== input.session) throw aideError("CHECKPOINT_NOT_FOUND", { checkpoint: input.checkpoint });
  if (input.mode === "task") return { checkpoint: target.checkpoint, plan: { modified: [], created_since: [], deleted_since: [] }, applied: !input.dry_run };
  const started = performance.now();
  // `bounded` also fires when the host lock is lost under the work (its helper died): up to the
  // first write the restore stops then; once files are being written it finishes, as on a timeout.
  return repo.lock.run(signal, async (bounded) => {
    const readBefore = repo.objects.objectsRead;
    const phases: Record<string, number> = {};
    let mark = started;
    const lap = (name: string) => {
      const now = performance.now();
      phases[name] = Math.round((now - mark) * 10) / 10;
      mark = now;
    };
    lap("wait");
    const scan = await scanWorkingTree(repo, context, bounded);
    const current = scan.root;
    lap("scan");
    const latestTree = (await latestCheckpoint(repo))?.tree;
    const workspaceChanged = latestTree !== undefined && latestTree !== current.oid;
    const compared = await compareTrees(repo.objects, { kind: "stored", oid: target.tree }, { kind: "scanned", node: current });
    const changes = compared.filter((change) => !isPathExcluded(context, change.path));
    const plan = planOf(changes);
    lap("plan");
    if (input.dry_run) return { checkpoint: target.checkpoint, plan, applied: false, workspace_changed: workspaceChanged };
    if (workspaceChanged && !input.force) throw aideError("WORKSPACE_CHANGED");
    let safety: string | undefined;
    if (workspaceChanged) {
      const recorded = await recordCheckpoint(
        repo,
        context,
        current,
        await countChangesSinceLatest(repo, current),
        { session: input.session, run: "safety", label: `before restoring ${input.checkpoint.slice(0, 12)}` },
        bounded,
      );
      safety = recorded.id;
    }
    checkSignal(bounded);
    const written = await applyRestore(repo.workspace, repo.objects, changes, join(repo.gitdir, "tmp"));
    lap("apply");
    // Refresh the cache for the restored paths; their objects exist, so nothing is written. The
    // files written through their own descriptor are known (content and stat): only the rest
    // (removed files, links, files over the size limit now) are looked at again.
    const settled = context.now();
    const known = new Map<string, FileNode>();
    for (const [path, file] of written) if (file.stats.size <= context.config.max_file_bytes) known.set(path, fileNodeOf(file.stats, file.oid, settled));
    // Every file written came from the target and nothing else differed: the folders are the
    // target's (no tree to hash again). Otherwise the trees above the changes are rebuilt.
    let restoredRoot = changes.length === compared.length ? await treeFromTarget(repo.objects, target.tree, current, changes, known) : undefined;
    if (restoredRoot === undefined) {
      const writer = newPackWriter(repo, context);
      const rescan = await scanChangedPaths(
        mergeFileNodes(current, known),
        changes.map((c) => c.path).filter((path) => !known.has(path)),
        {
          workspace: repo.workspace,
          excludes: context.compiledExcludes,
          respectGitignore: context.config.respect_gitignore,
          maxFileBytes: context.config.max_file_bytes,
          sink: writer,
          signal: new AbortController().signal,
          now: context.now,
        },
      );
      await finishWriter(repo, writer);
      restoredRoot = rescan.root;
    }
    lap("rescan");
    let latestId = target.checkpoint.id;
    if (restoredRoot.oid === target.tree) {
      // createdMs only orders new checkpoints after every existing one: keep the newest time seen.
      const newest = Math.max(Date.parse(target.checkpoint.created_at) || 0, (await latestCheckpoint(repo))?.createdMs ?? 0);
      await setLatestCheckpoint(repo, { id: target.checkpoint.id, tree: target.tree, createdMs: newest });
    } else {
      // Something in the checkpoint is excluded or too large now, so the tree differs from it:
      // record what the workspace is, so the next restore does not see a change nobody made.
      const label = `after restoring ${input.checkpoint.slice(0, 12)}`;
      const recorded = await recordCheckpoint(
        repo,
        context,
        restoredRoot,
        await countChangesSinceLatest(repo, restoredRoot),
        { session: input.session, run: "restore", label },
        new AbortController().signal,
      );
      latestId = recorded.id;
    }
    storeCache(repo, { commit: latestId, root: restoredRoot }, (error) => context.logger.warn({ err: error }, "stat cache not saved"));
    lap("record");
    context.logger.info(
      {
        workspace: repo.workspace,
        checkpoint: target.checkpoint.id,
        ...counts(plan),
        safety,
        phases,
        objects_read: repo.objects.objectsRead - readBefore,
        ...(scan.statThread ? { stat_thread: scan.statThread } : {}),
      },
      "checkpoint restored",
    );
    return { checkpoint: target.checkpoint, plan, applied: true, workspace_changed: workspaceChanged, ...(safety ? { safety_checkpoint: safety } : {}) };
  });
}

function counts(plan: RestorePlan) {
  return { modified: plan.modified.length, created_since: plan.created_since.length, deleted_since: plan.deleted_since.length };
}
