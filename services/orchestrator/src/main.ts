import { runService, startService } from "@aide/runtime";
import { commandEndpoints } from "./commands/command-endpoints.js";
import { serveForwardedCommands } from "./commands/forwarded-commands.js";
import { configFromEnv } from "./config/orchestrator-config.js";
import { defaultBackpressure } from "./config/backpressure-settings.js";
import { createBusOrchestrator } from "./create-orchestrator.js";
import { claimInstanceId } from "./config/instance-id-claim.js";
import { warmUp } from "./warm-up.js";

await runService("orchestrator", async ({ connection, logger }) => {
  const config = configFromEnv();
  // No explicit id: claim one no live instance holds, so two instances never resume each other's runs.
  const claim = config.instanceId
    ? undefined
    : await claimInstanceId({
        connection,
        logger: logger.child({ module: "instance-id" }),
        leaseMs: config.leaseMs,
        onLost: () => process.kill(process.pid, "SIGTERM"),
      });
  if (claim) config.instanceId = claim.id;
  const orchestrator = await createBusOrchestrator(connection, config, logger);
  // First-use compilation (every event schema's first validation) before anything is answered.
  warmUp(orchestrator.seams.events, logger.child({ module: "warm-up" }));
  // Resume before answering commands: a decision for a re-offered approval must find its waiter.
  const forwarded = serveForwardedCommands(connection, orchestrator, logger.child({ module: "forwarded" }));
  const resumed = await orchestrator.resumeAll();
  orchestrator.startBackground();
  const service = await startService({
    connection,
    name: "aide-orchestrator",
    version: "0.1.0",
    description: "The agent loop: Plan/Act, approvals, evidence-gated completion, durable sessions",
    endpoints: commandEndpoints(orchestrator),
    logger: logger.child({ module: "commands" }),
    // Commands wait their turn fairly per session past this; the gateway retries a BUSY.
    maxConcurrent: (config.backpressure ?? defaultBackpressure).maxInFlight,
    maxQueued: (config.backpressure ?? defaultBackpressure).maxQueued,
    maxQueuedPerSession: 16,
  });
  logger.info({ resumed, instance: config.instanceId, unsandboxed: config.unsandboxed, roots: config.workspaceRoots }, "orchestrator ready");
  return async () => {
    forwarded.unsubscribe();
    await orchestrator.stop();
    await service.stop();
    await claim?.release();
  };
});
