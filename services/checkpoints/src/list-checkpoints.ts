/** Lists a workspace's checkpoints (oldest first) and reads one by id. */
import { aideError, type Checkpoint } from "@aide/contracts";
import { decodeCheckpointMessage, parseCommit, runsPrefix } from "./checkpoint-metadata.js";
import type { ShadowRepo } from "./shadow-repo.js";

export interface StoredCheckpoint {
  checkpoint: Checkpoint;
  tree: string;
  parents: string[];
}

/** Reads one checkpoint commit; CHECKPOINT_NOT_FOUND if it is missing or not a checkpoint. */
export async function readCheckpoint(repo: ShadowRepo, oid: string): Promise<StoredCheckpoint> {
  let object;
  try {
    object = await repo.objects.read(oid);
  } catch {
    throw aideError("CHECKPOINT_NOT_FOUND", { checkpoint: oid });
  }
  if (object.type !== "commit") throw aideError("CHECKPOINT_NOT_FOUND", { checkpoint: oid });
  const commit = parseCommit(object.content);
  const checkpoint = decodeCheckpointMessage(oid, commit.message);
  if (!checkpoint) throw aideError("CHECKPOINT_NOT_FOUND", { checkpoint: oid });
  return { checkpoint, tree: commit.tree, parents: commit.parents };
}

/** Every checkpoint reachable from the run refs (of one session, or all), oldest first. */
export async function listStoredCheckpoints(repo: ShadowRepo, session?: string): Promise<StoredCheckpoint[]> {
  const refs = await repo.refs.list(session === undefined ? runsPrefix : `${runsPrefix}/${session}`);
  const seen = new Set<string>();
  const out: StoredCheckpoint[] = [];
  for (const { oid } of refs) {
    let next: string | undefined = oid;
    while (next !== undefined && !seen.has(next)) {
      seen.add(next);
      let stored: StoredCheckpoint;
      try {
        stored = await readCheckpoint(repo, next);
      } catch {
        break;
      }
      out.push(stored);
      next = stored.parents[0];
    }
  }
  return out.sort((a, b) => a.checkpoint.created_at.localeCompare(b.checkpoint.created_at) || a.checkpoint.id.localeCompare(b.checkpoint.id));
}

export async function listCheckpoints(repo: ShadowRepo, session?: string): Promise<Checkpoint[]> {
  return (await listStoredCheckpoints(repo, session)).map((s) => s.checkpoint);
}
