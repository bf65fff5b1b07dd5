import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";

/** Waits for the connection's next permission error, or resolves undefined after timeoutMs. */
async function nextPermissionError(connection: NatsConnection, timeoutMs = 1500): Promise<string | undefined> {
  const iterator = connection.status()[Symbol.asyncIterator]();
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs));
  for (;;) {
    const next = await Promise.race([iterator.next(), timeout]);
    if (next === undefined || next.done) return undefined;
    const status = next.value;
    const context = (status as { permissionContext?: { operation: string; subject: string } }).permissionContext;
    if (status.type === "error" && String(status.data) === "PERMISSIONS_VIOLATION" && context) {
      return `${context.operation} ${context.subject}`;
    }
  }
}

/** A subject each user may publish, for the marker sent after a refused publish. */
const markerSubjects: Record<string, string> = {
  orchestrator: "agent.orch.marker",
  gateway: "agent.cmd.marker",
  model: "agent.model.delta.marker",
  checkpoints: "$KV.aide_workspace_locks.marker",
  supervisor: "$SRV.PING.marker",
};
/** Users that publish nothing but may answer a request they receive on this subject. */
const responderSubjects: Record<string, string> = { tools: "agent.tools.marker", mcp: "agent.mcp.marker" };

describe("bus permissions (real nats-server with the generated config)", () => {
  let bus: TestBus;
  let observer: NatsConnection;
  beforeAll(async () => {
    bus = await startTestBus();
    observer = await bus.connectAs("tester");
  });
  afterAll(async () => bus?.stop());

  /**
   * After the refused publish, the same connection sends a marker the observer receives; the
   * server keeps one connection's messages in order, so had the refused message gone through, it
   * would have reached the observer before the marker (no sleep, no late message missed). The
   * observer user can neither publish nor answer: for it, its own flush and then the observer's
   * (the server forwards a message to the observer's connection while it reads the publish, so it
   * precedes the observer's PONG).
   */
  async function sendMarker(user: string, connection: NatsConnection): Promise<string> {
    const direct = markerSubjects[user];
    if (direct !== undefined) {
      const arrived = new Promise<string>((resolve) => observer.subscribe(direct, { max: 1, callback: (_e, m) => resolve(m.subject) }));
      await observer.flush();
      connection.publish(direct, new TextEncoder().encode("marker"));
      return arrived;
    }
    const responder = responderSubjects[user];
    if (responder !== undefined) {
      connection.subscribe(responder, { max: 1, callback: (_e, m) => m.respond(new TextEncoder().encode("marker")) });
      await connection.flush();
      const reply = await observer.request(responder, new TextEncoder().encode("?"), { timeout: 10_000 });
      return `reply ${new TextDecoder().decode(reply.data)}`;
    }
    await connection.flush().catch(() => undefined);
    await observer.flush();
    return "flushed";
  }

  async function assertPublishRefused(user: string, subject: string) {
    const received: string[] = [];
    const sub = observer.subscribe(subject, { callback: (_e, m) => received.push(m.subject) });
    await observer.flush();
    const connection = await bus.connectAs(user);
    const errorPromise = nextPermissionError(connection);
    connection.publish(subject, new TextEncoder().encode("{}"));
    await connection.flush().catch(() => undefined);
    const error = await errorPromise;
    expect(error, `${user} publishing ${subject}`).toBe(`publish ${subject}`);
    const marker = await sendMarker(user, connection);
    expect(marker).not.toBe("");
    expect(received, `${user} publishing ${subject} (checked after the marker ${marker})`).toEqual([]);
    sub.unsubscribe();
  }

  async function assertSubscribeRefused(user: string, subject: string) {
    const connection = await bus.connectAs(user);
    const errorPromise = nextPermissionError(connection);
    const got: string[] = [];
    connection.subscribe(subject, {
      callback: (e, m) => {
        if (!e) got.push(m.subject);
      },
    });
    await connection.flush().catch(() => undefined);
    const error = await errorPromise;
    expect(error, `${user} subscribing ${subject}`).toBe(`subscription ${subject}`);
    expect(got).toEqual([]);
  }

  for (const user of ["tools", "model", "checkpoints"]) {
    it(`${user} cannot publish events or decisions`, async () => {
      await assertPublishRefused(user, "agent.evt.x.run.completed");
      await assertPublishRefused(user, "agent.cmd.decision");
    });
    it(`${user} cannot subscribe to commands or another service's inbox`, async () => {
      await assertSubscribeRefused(user, "agent.cmd.>");
      await assertSubscribeRefused(user, "_INBOX_orchestrator.>");
      await assertSubscribeRefused(user, "_INBOX_gateway.>");
    });
    it(`${user} cannot use the JetStream API`, async () => {
      await assertPublishRefused(user, "$JS.API.STREAM.DELETE.AGENT_EVENTS");
      await assertPublishRefused(user, "$JS.API.INFO");
    });
  }

  it("only the gateway publishes commands; the gateway cannot publish events", async () => {
    await assertPublishRefused("orchestrator", "agent.cmd.decision");
    await assertPublishRefused("gateway", "agent.evt.s1.run.completed");
    await assertPublishRefused("gateway", "$JS.API.STREAM.DELETE.AGENT_EVENTS");
  });

  it("the observer may only watch", async () => {
    await assertPublishRefused("observer", "agent.cmd.start");
    const connection = await bus.connectAs("observer");
    const got: string[] = [];
    connection.subscribe("agent.>", { callback: (_e, m) => got.push(m.subject) });
    await connection.flush();
    const orchestrator = await bus.connectAs("orchestrator");
    orchestrator.publish("agent.evt.s1.run.created", new TextEncoder().encode("{}"));
    orchestrator.publish("agent.orch.marker", new TextEncoder().encode("marker"));
    await orchestrator.flush();
    for (let i = 0; i < 200 && !got.includes("agent.orch.marker"); i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toEqual(["agent.evt.s1.run.created", "agent.orch.marker"]);
  });

  it("only the supervisor may tell the model service to reload its registry; only the orchestrator may ask for a probe", async () => {
    for (const user of ["orchestrator", "gateway", "tools", "checkpoints", "observer", "model"]) await assertPublishRefused(user, "agent.model.reload");
    for (const user of ["gateway", "tools", "checkpoints", "observer", "supervisor"]) await assertPublishRefused(user, "agent.model.probe");
    await assertSubscribeRefused("tools", "agent.model.reload");
    const model = await bus.connectAs("model");
    const got: string[] = [];
    model.subscribe("agent.model.reload", { callback: (_e, m) => got.push(m.subject) });
    model.subscribe("agent.model.probe", { callback: (_e, m) => got.push(m.subject) });
    await model.flush();
    const supervisor = await bus.connectAs("supervisor");
    supervisor.publish("agent.model.reload", new TextEncoder().encode("{}"));
    await supervisor.flush();
    const orchestrator = await bus.connectAs("orchestrator");
    orchestrator.publish("agent.model.probe", new TextEncoder().encode("{}"));
    await orchestrator.flush();
    for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(got.sort()).toEqual(["agent.model.probe", "agent.model.reload"]);
  });

  it("refuses a wrong password", async () => {
    await expect(connect({ servers: bus.url, user: "tools", pass: "wrong", reconnect: false })).rejects.toThrow(/Authorization/i);
  });
});
