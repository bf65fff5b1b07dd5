import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { subjects, serviceNames, ErrorCodeSchema, mcpSubjects } from "@aide/contracts";
import { startTestBus, type TestBus } from "../helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../helpers/service-process.js";

/** Every request/reply subject of every service, answered by a real process. */
const endpoints = [...Object.values(subjects.cmd), ...Object.values(subjects.model), ...Object.values(subjects.tools), ...Object.values(subjects.checkpoints), ...Object.values(mcpSubjects)];
// Subjects that take no arguments accept any object; only their non-JSON and non-object cases apply.
const argumentless = new Set<string>([subjects.model.list, subjects.tools.list, subjects.cmd.sessions, mcpSubjects.list, mcpSubjects.status]);

describe("malformed requests to every endpoint (real services)", () => {
  let bus: TestBus;
  let client: NatsConnection;
  let home: string;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    bus = await startTestBus();
    client = await bus.connectAs("tester");
    home = mkdtempSync(join(tmpdir(), "aide-malformed-"));
    const modelsConfig = join(home, "models.json");
    writeFileSync(join(home, "t.json"), JSON.stringify({ replies: [{ text: "hello" }] }));
    writeFileSync(modelsConfig, JSON.stringify({ default: "s", models: [{ id: "s", provider: "scripted", transcript: join(home, "t.json") }] }));
    const env = { AIDE_HOME: home, AIDE_MODELS_CONFIG: modelsConfig, AIDE_WORKSPACE_ROOTS: home };
    for (const name of serviceNames.filter((n) => n !== "gateway")) {
      processes.push(await startServiceProcess(bus, name, { env, pinger: client }));
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(processes.map((p) => p.stop()));
    await bus?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it.each(endpoints)("%s: not JSON → BAD_JSON, and it keeps answering", async (subject) => {
    const reply = await requestJson(client, subject, "{not json");
    expect(reply.ok).toBe(false);
    expect(reply.error.code).toBe("BAD_JSON");
    expect(ErrorCodeSchema.safeParse(reply.error.code).success).toBe(true);
  });

  it.each(endpoints.filter((s) => !argumentless.has(s)))("%s: wrong shape → VALIDATION naming the field", async (subject) => {
    const reply = await requestJson(client, subject, { session: 42, workspace: ["x"], unexpected: true });
    expect(reply.ok).toBe(false);
    expect(reply.error.code).toBe("VALIDATION");
    expect(reply.error.message.length).toBeGreaterThan(10);
  });

  it.each(endpoints.filter((s) => !argumentless.has(s)))("%s: a 900 KB body with oversized fields is refused with a code", async (subject) => {
    const big = "x".repeat(300_000);
    const reply = await requestJson(client, subject, { session: big, workspace: big, request_id: big });
    expect(reply.ok).toBe(false);
    expect(["VALIDATION", "PAYLOAD_TOO_LARGE"]).toContain(reply.error.code);
  });

  it("a body over the server's max payload never leaves the client", async () => {
    expect(() => client.publish(subjects.tools.exec, new Uint8Array(2 * 1024 * 1024))).toThrow(/MAX_PAYLOAD|payload/i);
  });

  it("every service still answers $SRV.PING and a valid request after all that", async () => {
    for (const name of serviceNames.filter((n) => n !== "gateway")) {
      const ping = await client.request(`$SRV.PING.aide-${name}`, new Uint8Array(), { timeout: 2000 });
      expect(ping.data.length).toBeGreaterThan(0);
    }
    expect((await requestJson(client, subjects.tools.list, {})).ok).toBe(true);
    expect((await requestJson(client, subjects.model.list, {})).ok).toBe(true);
    for (const p of processes) expect(p.child.exitCode).toBeNull();
  });
});
