import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServerCgroups, runService, startService } from "@aide/runtime";
import { mcpPaths } from "./config/mcp-paths.js";
import { readMcpConfig, readTrustFile } from "./config/read-mcp-config.js";
import { mcpEndpoints } from "./mcp-endpoints.js";
import { ServerRegistry } from "./servers/server-registry.js";
import { stateWriter } from "./state-file.js";

/** services/mcp/dist/main.js → the repository (install) root. */
const installRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

await runService("mcp", async ({ connection, logger }) => {
  const aideHome = resolve(process.env.AIDE_HOME ?? resolve(process.env.HOME ?? "/root", ".aide"));
  const paths = mcpPaths(aideHome);
  const config = readMcpConfig(paths.config);
  const workspaceRoots = (process.env.AIDE_WORKSPACE_ROOTS ?? "")
    .split(":")
    .filter((root) => root.startsWith("/"))
    .map((root) => resolve(root));
  const cgroups = await createServerCgroups(logger.child({ module: "cgroups" }));
  let registry: ServerRegistry | undefined;
  const writeState = stateWriter(
    paths.stateFile,
    () => registry?.snapshot() ?? {},
    (error) => logger.warn({ err: error.message }, "could not write the MCP state file"),
  );
  const initialMs = Number(process.env.AIDE_MCP_RESTART_INITIAL_MS ?? 500);
  registry = new ServerRegistry({
    config,
    trust: () => {
      try {
        return readTrustFile(paths.trust);
      } catch (error) {
        logger.warn({ err: (error as Error).message }, "the MCP trust file is not valid; no workspace .mcp.json is trusted");
        return { trusted: {} };
      }
    },
    settings: { workspaceRoots, home: process.env.HOME ?? "/root", aideHome, installRoot, secretsDir: paths.secretsDir, serviceEnv: process.env, cgroups },
    logger: logger.child({ module: "servers" }),
    onChange: writeState,
    backoff: { initialMs: Number.isFinite(initialMs) && initialMs > 0 ? initialMs : 500, maxMs: 30_000 },
  });
  await registry.start();
  const running = await startService({
    connection,
    name: "aide-mcp",
    version: "0.1.0",
    description: "Model Context Protocol servers as tools, each stdio server in its own bubblewrap sandbox",
    endpoints: mcpEndpoints(registry),
    logger,
  });
  logger.info({ servers: Object.keys(config.servers), roots: workspaceRoots }, "mcp ready");
  writeState();
  return async () => {
    await running.stop();
    await registry?.stop();
  };
});
