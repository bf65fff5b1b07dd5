import { describe, expect, it } from "vitest";
import { serviceDefinitions } from "../src/supervisor/service-table.js";
import { testStackSettings } from "./stack-settings.js";

const settings = testStackSettings;

describe("aide up passes the checkpoints service's own settings to it only", () => {
  it("forwards AIDE_CHECKPOINT_MAX_CONCURRENT, AIDE_CHECKPOINT_MAX_QUEUED and AIDE_CHECKPOINT_SCAN_STAT_THREAD when set, and to no other service", () => {
    const passed = { AIDE_CHECKPOINT_MAX_CONCURRENT: "16", AIDE_CHECKPOINT_MAX_QUEUED: "300", AIDE_CHECKPOINT_SCAN_STAT_THREAD: "false" };
    const definitions = serviceDefinitions(settings, { PATH: "/usr/bin", ...passed });
    const checkpoints = definitions.find((definition) => definition.name === "checkpoints")!;
    expect(checkpoints.env).toMatchObject(passed);
    for (const other of definitions.filter((definition) => definition.name !== "checkpoints")) {
      for (const key of Object.keys(passed)) expect(other.env).not.toHaveProperty(key);
    }
    // Unset: nothing is passed, the service takes its defaults.
    const plain = serviceDefinitions(settings, { PATH: "/usr/bin" }).find((definition) => definition.name === "checkpoints")!;
    for (const key of Object.keys(passed)) expect(plain.env).not.toHaveProperty(key);
  });
});
