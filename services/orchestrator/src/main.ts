import { runService, startService } from "@aide/runtime";
import { commandEndpoints } from "./commands/command-endpoints.js";
import { configFromEnv } from "./config/orchestrator-config.js";
import { createBusOrchestrator } from "./create-orchestrator.js";

await runService("orchestrator", async ({ connection, logger }) => {
  const config = configFromEnv();
  const orchestrator = await createBusOrchestrator(connection, config, logger);
  // Resume before answering commands: a decision for a re-offered approval must find its waiter.
  const resumed = await orchestrator.resumeAll();
  const service = await startService({
    connection,
    name: "aide-orchestrator",
    version: "0.1.0",
    description: "The agent loop: Plan/Act, approvals, evidence-gated completion, durable sessions",
    endpoints: commandEndpoints(orchestrator),
    logger: logger.child({ module: "commands" }),
  });
  logger.info({ resumed, unsandboxed: config.unsandboxed, roots: config.workspaceRoots }, "orchestrator ready");
  return async () => {
    await orchestrator.stop();
    await service.stop(2_000);
  };
});
