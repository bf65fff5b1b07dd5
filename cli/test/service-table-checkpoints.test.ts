import { describe, expect, it } from "vitest";
import { serviceDefinitions, type StackSettings } from "../src/supervisor/service-table.js";

const settings: StackSettings = {
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

describe("aide up passes the checkpoints service's lstat-thread setting to it only", () => {
  it("forwards AIDE_CHECKPOINT_SCAN_STAT_THREAD when set, to the checkpoints service and no other", () => {
    const definitions = serviceDefinitions(settings, { PATH: "/usr/bin", AIDE_CHECKPOINT_SCAN_STAT_THREAD: "false" });
    expect(definitions.find((definition) => definition.name === "checkpoints")!.env).toMatchObject({ AIDE_CHECKPOINT_SCAN_STAT_THREAD: "false" });
    for (const other of definitions.filter((definition) => definition.name !== "checkpoints")) expect(other.env).not.toHaveProperty("AIDE_CHECKPOINT_SCAN_STAT_THREAD");
    const unset = serviceDefinitions(settings, { PATH: "/usr/bin" }).find((definition) => definition.name === "checkpoints")!;
    expect(unset.env).not.toHaveProperty("AIDE_CHECKPOINT_SCAN_STAT_THREAD");
  });
});
