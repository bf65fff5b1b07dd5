import type { StackSettings } from "../src/supervisor/service-table.js";

/** The stack settings the service-table tests build definitions from (no file is read or written). */
export const testStackSettings: StackSettings = {
  aideHome: "/tmp/aide-home",
  natsUrl: "nats://127.0.0.1:4233",
  credentialFiles: {},
  gatewayPort: 4280,
  tokenFile: "/tmp/aide-home/token",
  workspaceRoots: ["/tmp"],
  logLevel: "info",
  unsafeNoSandbox: false,
  unsandboxedServices: false,
};
