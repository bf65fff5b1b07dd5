import type { NatsConnection } from "nats";
import { McpReloadReplySchema, mcpSubjects } from "@aide/contracts";
import { busRequest, type Logger } from "@aide/runtime";
import { readJsonDocument, watchConfigFile } from "./config-file-watch.js";

/**
 * Keeps the running MCP service's servers in step with `$AIDE_HOME/mcp.json`, as the model
 * registry is kept with models.json: the supervisor reads the file (the service's sandbox binds the
 * inode it was started with) and sends it with agent.mcp.reload. A file that is not JSON, or that
 * the service refuses (CONFIG_INVALID naming the field), changes nothing: the servers keep running.
 */
export function watchMcpConfig(options: { configFile: string; connection: NatsConnection; logger: Logger; pollMs?: number }): () => void {
  const { configFile, logger } = options;
  return watchConfigFile(
    configFile,
    async () => {
      const read = readJsonDocument(configFile);
      if ("error" in read) {
        logger.warn({ file: configFile, err: read.error }, "mcp.json is not JSON; the MCP service keeps its servers");
        return;
      }
      try {
        const result = await busRequest(options.connection, mcpSubjects.reload, { document: read.document, source: configFile }, McpReloadReplySchema, { timeoutMs: 60_000, service: "mcp" });
        logger.info(result, "MCP servers reloaded");
      } catch (error) {
        logger.warn({ err: error }, "the MCP service refused the changed mcp.json; it keeps its servers");
      }
    },
    options.pollMs,
  );
}
