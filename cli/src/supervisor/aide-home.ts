import { mkdirSync, chmodSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository (or installed package) root: cli/dist/supervisor/ → ../../.. */
export const installRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface AideHome {
  root: string;
  /** nats-server config, credentials, JetStream store, the gateway token. */
  runDir: string;
  logDir: string;
  modelDir: string;
  stackFile: string;
  tokenFile: string;
}

/** `$AIDE_HOME`, default `~/.aide`; created 0700. */
export function aideHome(env: NodeJS.ProcessEnv = process.env): AideHome {
  const root = resolve(env.AIDE_HOME ?? join(homedir(), ".aide"));
  const home: AideHome = {
    root,
    runDir: join(root, "run"),
    logDir: join(root, "logs"),
    modelDir: join(root, "models"),
    stackFile: join(root, "stack.json"),
    tokenFile: join(root, "run", "gateway.token"),
  };
  return home;
}

export function ensureAideHome(home: AideHome): void {
  for (const dir of [home.root, home.runDir, home.logDir, home.modelDir]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  chmodSync(home.root, 0o700);
  chmodSync(home.runDir, 0o700);
}
