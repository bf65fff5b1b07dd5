import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingNames, settingTable } from "@aide/contracts";
import { buildOpenApiDocument, openApiPath } from "../src/openapi.js";
import { gatewayRoutes } from "../src/gateway.js";
import { startHarness, type Harness } from "./gateway-harness.js";

const checkedIn = join(import.meta.dirname, "..", "openapi.json");
const generated = () => JSON.stringify(buildOpenApiDocument(gatewayRoutes(), "0.1.0"), null, 2) + "\n";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());

describe("OpenAPI document", () => {
  it("the checked-in services/gateway/openapi.json equals the one generated from the schemas (regenerate: AIDE_UPDATE_OPENAPI=1)", () => {
    if (process.env.AIDE_UPDATE_OPENAPI === "1") writeFileSync(checkedIn, generated());
    expect(readFileSync(checkedIn, "utf8")).toBe(generated());
  });

  it("documents every route with its body schema and the error envelope", () => {
    const document = JSON.parse(generated());
    for (const route of gatewayRoutes()) expect(document.paths[openApiPath(route.url)][route.method.toLowerCase()]).toBeDefined();
    const start = document.paths["/api/agent/start"].post;
    expect(start.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["task", "workspace"]));
    expect(start.responses["409"].description).toContain("ALREADY_RUNNING");
    expect(document.components.schemas.ErrorEnvelope.properties.error).toBeDefined();
    // The start's experiment settings are the setting table's, each with its description.
    const experiment = start.requestBody.content["application/json"].schema.properties.experiment as { properties: Record<string, { description?: string }> };
    expect(Object.keys(experiment.properties)).toEqual(["arm", ...settingNames]);
    for (const name of settingNames) expect(experiment.properties[name].description).toBe(settingTable[name].description);
  });

  it("is served at /api/openapi.json", async () => {
    const response = await h.gateway.app.inject({ method: "GET", url: "/api/openapi.json", headers: h.headers() });
    expect(response.statusCode).toBe(200);
    expect(JSON.stringify(response.json(), null, 2) + "\n").toBe(generated());
  });
});
