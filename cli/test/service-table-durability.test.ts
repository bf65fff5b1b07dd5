import { describe, expect, it } from "vitest";
import { serviceDefinitions } from "../src/supervisor/service-table.js";
import { testStackSettings } from "./stack-settings.js";

const settings = testStackSettings;

describe("aide up passes the JetStream and store-outage settings to the orchestrator only", () => {
  it("forwards AIDE_JETSTREAM_REPLICAS and the retention/pause settings that are set, and nothing to other services", () => {
    const env = { PATH: "/usr/bin", AIDE_JETSTREAM_REPLICAS: "3", AIDE_EVENTS_MAX_AGE_MS: "86400000", AIDE_STORE_PAUSE_AFTER_MS: "5000" };
    const definitions = serviceDefinitions(settings, env);
    const orchestrator = definitions.find((definition) => definition.name === "orchestrator")!;
    expect(orchestrator.env).toMatchObject({ AIDE_JETSTREAM_REPLICAS: "3", AIDE_EVENTS_MAX_AGE_MS: "86400000", AIDE_STORE_PAUSE_AFTER_MS: "5000" });
    expect(orchestrator.env).not.toHaveProperty("AIDE_SESSIONS_MAX_AGE_MS");
    for (const other of definitions.filter((definition) => definition.name !== "orchestrator")) expect(other.env).not.toHaveProperty("AIDE_JETSTREAM_REPLICAS");
  });
});
