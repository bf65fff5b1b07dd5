import type { Logger } from "pino";
import { aideError } from "@aide/contracts";
import type { Sandbox } from "./sandbox.js";

export async function createSandbox(options: { unsafeNoSandbox: boolean; logger: Logger }): Promise<Sandbox> {
  void options;
  return {
    mode: "unavailable",
    unavailableReason: "not implemented yet",
    wrap: () => {
      throw aideError("SANDBOX_UNAVAILABLE", { detail: "not implemented yet" });
    },
    run: async () => {
      throw aideError("SANDBOX_UNAVAILABLE", { detail: "not implemented yet" });
    },
  };
}
