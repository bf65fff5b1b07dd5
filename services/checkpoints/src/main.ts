/** The checkpoints service process. */
import { admissionLimits, announcedRoots, runService, startService, withWorkspaceRoots, workspaceRootsMetadata } from "@aide/runtime";
import { createCheckpointContext } from "./checkpoint-context.js";
import { CheckpointService } from "./checkpoint-service.js";
import { loadCheckpointConfig } from "./config.js";
import { checkpointEndpoints } from "./endpoints.js";
import { kvWorkspaceLock, openWorkspaceLockBucket } from "./workspace/kv-workspace-lock.js";

await runService("checkpoints", async ({ connection, logger }) => {
  const config = loadCheckpointConfig();
  if (config.workspace_roots.length === 0) logger.warn("AIDE_WORKSPACE_ROOTS is not set: any workspace directory is accepted");
  // Commits to one workspace serialize across every checkpoints service on the bus, on any host.
  const lockBucket = await openWorkspaceLockBucket(connection);
  const crossHostLock = kvWorkspaceLock({ kv: lockBucket, logger: logger.child({ module: "workspace-lock" }), leaseMs: config.lock_lease_ms });
  const context = createCheckpointContext(config, logger.child({ module: "checkpoints" }), Date.now, crossHostLock);
  // The lstat thread loads now, so the first full walk has it ready.
  context.statPrefetcher?.start();
  const service = new CheckpointService(context);
  const running = await startService({
    connection,
    name: "aide-checkpoints",
    version: "0.1.0",
    description: "Shadow-repository checkpoints of workspaces: commit, list, restore, diff, prune, usage",
    // Also at agent.checkpoints.root.<token>.* per served root, announced in $SRV.INFO (workspace affinity).
    endpoints: withWorkspaceRoots(checkpointEndpoints(service), announcedRoots(config.workspace_roots)),
    metadata: workspaceRootsMetadata(announcedRoots(config.workspace_roots)),
    // Sized by the configuration (max_concurrent, max_queued); per session: the runtime's rule.
    ...admissionLimits({ maxConcurrent: config.max_concurrent, maxQueued: config.max_queued }),
    logger,
  });
  logger.info(
    { roots: config.workspace_roots, max_file_bytes: config.max_file_bytes, timeout_ms: config.commit_timeout_ms, max_concurrent: config.max_concurrent, max_queued: config.max_queued },
    "checkpoints ready",
  );
  return async () => {
    await running.stop();
    await service.close();
  };
});
