import { watchFile, unwatchFile } from "node:fs";
import type { Logger } from "pino";

/**
 * Calls `onChange` (debounced) when the registry file changes or a file appears in or leaves the
 * models folder. Inside the service's sandbox the registry file is a bind mount that a rename does
 * not update, so the supervisor also sends agent.model.reload with the document it read; outside a
 * sandbox (containers, an external bus) this watch alone keeps the registry current.
 */
export function watchRegistry(paths: { configFile: string; modelsDir: string }, onChange: () => void, logger: Logger, debounceMs = 400): () => void {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, debounceMs);
    timer.unref();
  };
  watchFile(paths.configFile, { interval: 2000, persistent: false }, (current, previous) => {
    if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size || current.ino !== previous.ino) fire();
  });
  // Polled (its mtime changes when a file is added or removed): works before the folder exists.
  watchFile(paths.modelsDir, { interval: 2000, persistent: false }, (current, previous) => {
    if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino) fire();
  });
  logger.debug({ file: paths.configFile, dir: paths.modelsDir }, "watching the model registry");
  return () => {
    if (timer) clearTimeout(timer);
    unwatchFile(paths.configFile);
    unwatchFile(paths.modelsDir);
  };
}
