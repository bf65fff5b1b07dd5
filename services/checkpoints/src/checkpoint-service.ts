/** The service object: one shadow repository per workspace, the operations behind the endpoints. */
import type { CheckpointCommitRequest, CheckpointDiffRequest, CheckpointListRequest, CheckpointPruneRequest, CheckpointRestoreRequest, CheckpointUsageRequest } from "@aide/contracts";
import { aideError } from "@aide/contracts";
import { diskFullError, type DiskArea } from "./disk-full-error.js";
import { diffCheckpoints } from "./diff-checkpoints.js";
import { pruneCheckpoints, repositoryUsage } from "./prune-checkpoints.js";
import type { CheckpointContext } from "./checkpoint-context.js";
import { commitCheckpoint, timeoutSignal, type CommitResult } from "./commit-checkpoint.js";
import { listCheckpoints } from "./list-checkpoints.js";
import { resolveWorkspace } from "./workspace/resolve-workspace.js";
import { restoreCheckpoint, type RestoreResult } from "./restore-checkpoint.js";
import { flushCache, openShadowRepo, type ShadowRepo } from "./shadow-repo.js";

const maxListed = 2000;

/** A repack of a large history takes a while; an abandoned one leaves the old packs in place. */
const pruneTimeoutMs = 10 * 60_000;

async function withTimeout<T>(signal: AbortSignal, ms: number, reason: () => Error, work: (bounded: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = timeoutSignal(signal, ms, reason);
  try {
    return await work(timeout.signal);
  } finally {
    timeout.dispose();
  }
}

/** Every operation that writes (commits, restores, prunes, the stat cache a scan refreshes) answers a full disk as DISK_FULL. */
async function mapDiskFull<T>(workspace: string, work: () => Promise<T>, area: DiskArea = "checkpoints"): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw diskFullError(error, workspace, area) ?? error;
  }
}

/**
 * The operations behind the endpoints. Holds one ShadowRepo per workspace real path (so work
 * on one workspace is serialized while different workspaces proceed in parallel).
 */
export class CheckpointService {
  private readonly repos = new Map<string, ShadowRepo>();

  constructor(private readonly context: CheckpointContext) {}

  async repoFor(workspace: string): Promise<ShadowRepo> {
    const real = await resolveWorkspace(workspace, this.context.config.workspace_roots);
    let repo = this.repos.get(real);
    if (repo === undefined) {
      repo = openShadowRepo(real, this.context.crossHostLock, (error) => this.context.logger.warn({ err: error, workspace: real }, "could not release the workspace lock"));
      this.repos.set(real, repo);
    }
    return repo;
  }

  /** Waits for the locks to be let go of and for pending cache writes (on shutdown). */
  async close(): Promise<void> {
    await Promise.all(
      [...this.repos.values()].map(async (repo) => {
        await repo.lock.settled();
        await flushCache(repo);
      }),
    );
    await this.context.statPrefetcher?.close();
  }

  async commit(request: CheckpointCommitRequest, signal: AbortSignal): Promise<CommitResult> {
    return mapDiskFull(request.workspace, async () => {
      const repo = await this.repoFor(request.workspace);
      const ms = request.timeout_ms ?? this.context.config.commit_timeout_ms;
      return withTimeout(
        signal,
        ms,
        () => aideError("CHECKPOINT_TIMEOUT", { ms, workspace: request.workspace }),
        (bounded) => commitCheckpoint(repo, this.context, request, bounded),
      );
    });
  }

  async list(request: CheckpointListRequest) {
    const repo = await this.repoFor(request.workspace);
    const checkpoints = await listCheckpoints(repo, request.session);
    // About 250 bytes each: the newest 2,000 stay well under the bus's 1 MiB.
    if (checkpoints.length <= maxListed) return { checkpoints };
    return { checkpoints: checkpoints.slice(-maxListed), omitted: checkpoints.length - maxListed };
  }

  async restore(request: CheckpointRestoreRequest, signal: AbortSignal): Promise<RestoreResult> {
    return mapDiskFull(
      request.workspace,
      async () => {
        const repo = await this.repoFor(request.workspace);
        // Bounds the wait, the scan and the plan; once files are being written, the restore finishes.
        const ms = this.context.config.commit_timeout_ms * 4;
        return withTimeout(
          signal,
          ms,
          () => aideError("TIMEOUT", { ms }),
          (bounded) => restoreCheckpoint(repo, this.context, request, bounded),
        );
      },
      "workspace",
    );
  }

  async diff(request: CheckpointDiffRequest, signal: AbortSignal) {
    return mapDiskFull(request.workspace, async () => {
      const repo = await this.repoFor(request.workspace);
      const ms = this.context.config.commit_timeout_ms * 4;
      return withTimeout(
        signal,
        ms,
        () => aideError("TIMEOUT", { ms }),
        (bounded) => diffCheckpoints(repo, this.context, request.from, request.to, bounded),
      );
    });
  }

  async prune(request: CheckpointPruneRequest, signal: AbortSignal) {
    return mapDiskFull(request.workspace, async () => {
      const repo = await this.repoFor(request.workspace);
      const ms = pruneTimeoutMs;
      return withTimeout(
        signal,
        ms,
        () => aideError("TIMEOUT", { ms }),
        (bounded) => pruneCheckpoints(repo, this.context, request, bounded),
      );
    });
  }

  async usage(request: CheckpointUsageRequest) {
    const repo = await this.repoFor(request.workspace);
    return repositoryUsage(repo);
  }
}
