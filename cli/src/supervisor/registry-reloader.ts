import type { NatsConnection } from "nats";
import { ModelReloadReplySchema, subjects } from "@aide/contracts";
import { busRequest, type Logger } from "@aide/runtime";
import { readJsonDocument, watchConfigFile } from "./config-file-watch.js";
import { pathsNamedIn } from "./sandbox-launcher.js";

export interface RegistryReloaderOptions {
  /** models.json (or --models-config). */
  configFile: string;
  connection: NatsConnection;
  logger: Logger;
  /** The files the running model service can see (bound into its sandbox at its start). */
  visiblePaths(): string[];
  /** Restarts the model service alone, so its sandbox binds the files the registry now names. */
  restartModel(): Promise<void>;
  pollMs?: number;
}

/**
 * Keeps the running model service's registry in step with models.json, without restarting the
 * stack. The supervisor reads the file (the service's sandbox pins the inode it was started with)
 * and sends it with agent.model.reload; a file the service cannot see yet (a GGUF outside
 * $AIDE_HOME/models) needs a restart of the model service alone, which binds it.
 */
export class RegistryReloader {
  private unwatch: (() => void) | undefined;

  constructor(private readonly options: RegistryReloaderOptions) {}

  start(): void {
    this.unwatch = watchConfigFile(this.options.configFile, () => this.reload(), this.options.pollMs);
  }

  stop(): void {
    this.unwatch?.();
  }

  /** Sends the file's current content (null when it was removed: discovery only). */
  async reload(): Promise<void> {
    const { configFile, logger } = this.options;
    const read = readJsonDocument(configFile);
    if ("error" in read) {
      logger.warn({ file: configFile, err: read.error }, "models.json is not JSON; the model service keeps its registry");
      return;
    }
    const { document } = read;
    const visible = new Set(this.options.visiblePaths());
    const unseen = document === null ? [] : pathsNamedIn(configFile).filter((path) => path !== configFile && !visible.has(path));
    if (unseen.length > 0) {
      logger.info({ files: unseen }, "models.json names files the model service cannot see yet; restarting the model service");
      await this.options.restartModel();
      return;
    }
    try {
      const result = await busRequest(this.options.connection, subjects.model.reload, { document, source: configFile }, ModelReloadReplySchema, { timeoutMs: 15_000, service: "model" });
      logger.info({ source: result.source, models: result.models, default: result.default }, "model registry reloaded");
    } catch (error) {
      logger.warn({ err: error }, "the model service refused the changed registry; it keeps the previous one");
    }
  }
}
