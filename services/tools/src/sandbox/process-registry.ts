import type { Logger } from "pino";
import type { Sandbox } from "./sandbox.js";

export interface ProcessRegistry {
  /** Kills every background process of a session (or all when omitted); resolves when reaped. */
  closeAll(session?: string): Promise<void>;
}

export function createProcessRegistry(options: { sandbox: Sandbox; logger: Logger }): ProcessRegistry {
  void options;
  return { closeAll: async () => undefined };
}
