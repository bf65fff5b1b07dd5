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

  it("declares what the decision route answers: 410 for an expired or stale approval, 409 with APPROVAL_WRONG_SESSION", () => {
    const decision = JSON.parse(generated()).paths["/api/agent/decision"].post;
    expect(decision.responses["410"].description).toContain("APPROVAL_EXPIRED");
    expect(decision.responses["410"].description).toContain("APPROVAL_STALE_RUN");
    expect(decision.responses["409"].description).toContain("APPROVAL_WRONG_SESSION");
    expect(decision.responses["409"].description).toContain("APPROVAL_ALREADY_DECIDED");
  });

  it("declares report.json of an eval run as the object it serves, the other files as text", () => {
    const file = JSON.parse(generated()).paths["/api/eval/latest/{name}"].get;
    expect(file.responses["200"].content["application/json"].schema.type).toBe("object");
    expect(file.responses["200"].content["text/html"].schema.type).toBe("string");
  });

  it("links operations so a client can follow start -> status, decision, message, checkpoints; every link resolves", () => {
    const document = JSON.parse(generated());
    const operations = new Map<string, any>();
    for (const path of Object.values(document.paths) as Array<Record<string, any>>) for (const operation of Object.values(path)) operations.set(operation.operationId, operation);
    for (const id of operations.keys()) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    const startLinks = document.paths["/api/agent/start"].post.responses["200"].links;
    expect(Object.values(startLinks).map((link: any) => link.operationId)).toEqual(expect.arrayContaining(["getAgentStatus", "postAgentMessage", "postAgentAbort", "getCheckpoints"]));
    expect(document.paths["/api/agent/status"].get.responses["200"].links.decision.operationId).toBe("postAgentDecision");
    let links = 0;
    for (const operation of operations.values()) {
      for (const link of Object.values(operation.responses["200"]?.links ?? {}) as any[]) {
        links += 1;
        const target = operations.get(link.operationId);
        expect(target, link.operationId).toBeDefined();
        const names = (target.parameters ?? []).map((parameter: { name: string }) => parameter.name);
        for (const name of Object.keys(link.parameters ?? {})) expect(names, `${link.operationId}: ${name}`).toContain(name);
        const body = target.requestBody?.content["application/json"].schema;
        for (const key of Object.keys(link.requestBody ?? {})) expect(Object.keys(body?.properties ?? {}), `${link.operationId}: ${key}`).toContain(key);
        for (const name of (target.parameters ?? []).filter((parameter: { required: boolean }) => parameter.required).map((parameter: { name: string }) => parameter.name))
          expect(Object.keys(link.parameters ?? {}), `${link.operationId}: ${name}`).toContain(name);
        for (const key of body?.required ?? []) expect(Object.keys(link.requestBody ?? {}), `${link.operationId}: ${key}`).toContain(key);
      }
    }
    expect(links).toBeGreaterThan(20);
  });

  it("a plain GET of the WebSocket's address is 426 UPGRADE_REQUIRED with Upgrade: websocket, as documented", async () => {
    const response = await h.gateway.app.inject({ method: "GET", url: "/api/events?session=s1", headers: h.headers() });
    expect(response.statusCode).toBe(426);
    expect(response.headers.upgrade).toBe("websocket");
    expect(response.json().error.code).toBe("UPGRADE_REQUIRED");
    expect(JSON.parse(generated()).paths["/api/events"].get.responses["426"]).toBeDefined();
  });

  it("documents 431 (a head past the parser's limit) on every operation, and what the body checks refuse", () => {
    const document = JSON.parse(generated());
    for (const [path, methods] of Object.entries(document.paths) as Array<[string, Record<string, any>]>)
      for (const [method, operation] of Object.entries(methods)) expect(operation.responses["431"], `${method} ${path}`).toBeDefined();
    // The fuzz sent these, valid by the spec, and was refused: now the spec says what is refused.
    const rule = document.paths["/api/agent/auto-approve"].post.requestBody.content["application/json"].schema.properties.add_commands.items;
    const patterns = [rule.pattern, ...(rule.allOf ?? []).map((each: { pattern?: string }) => each.pattern)].filter(Boolean).map((pattern: string) => new RegExp(pattern, "u"));
    expect(patterns.length).toBeGreaterThan(0);
    expect(patterns.every((pattern: RegExp) => pattern.test("npm run lint"))).toBe(true);
    expect(patterns.every((pattern: RegExp) => pattern.test("rm -rf / ; echo"))).toBe(false);
    expect(patterns.every((pattern: RegExp) => pattern.test("   "))).toBe(false);
    const folder = document.paths["/api/agent/instructions"].get.parameters.find((parameter: { name: string }) => parameter.name === "folder");
    expect(folder.schema.maxLength).toBe(4096);
  });

  it("a plain GET of the WebSocket's address checks its query first (400 VALIDATION), like the upgrade", async () => {
    const response = await h.gateway.app.inject({ method: "GET", url: "/api/events?session=..%2Fx", headers: h.headers() });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe("VALIDATION");
  });
});
