import { runService } from "@aide/runtime";
import { createToolsService } from "./create-tools-service.js";
import { readSettings } from "./service-options.js";
import { createToolRegistry } from "./framework/tool-registry.js";
import { allTools } from "./tools/catalog.js";
import { createSandbox } from "./sandbox/create-sandbox.js";
import { createProcessRegistry } from "./sandbox/process-registry.js";
import { createLintGate } from "./lint/create-lint-gate.js";

await runService("tools", async ({ connection, logger }) => {
  const settings = readSettings(process.env, process.argv.slice(2));
  const sandbox = await createSandbox({ unsafeNoSandbox: settings.unsafeNoSandbox, logger: logger.child({ module: "sandbox" }) });
  const processes = createProcessRegistry({ sandbox, logger: logger.child({ module: "processes" }) });
  const service = await createToolsService({
    connection,
    logger,
    maxConcurrent: settings.maxConcurrent,
    dependencies: {
      registry: createToolRegistry(allTools()),
      sandbox,
      processes,
      lint: createLintGate(),
      logger: logger.child({ module: "calls" }),
      workspaceRoots: settings.workspaceRoots,
      now: () => performance.now(),
    },
  });
  logger.info({ sandbox: sandbox.mode, workspace_roots: settings.workspaceRoots }, "tools service started");
  return async () => {
    await service.stop();
    await processes.closeAll();
  };
});
