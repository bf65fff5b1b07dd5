import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInbox, type Msg, type NatsConnection } from "nats";
import { z } from "zod";
import pino from "pino";
import { replySchema } from "@aide/contracts";
import { busPermissions, busRequest, defineEndpoint, startService } from "@aide/runtime";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";

/**
 * Heartbeats on subjects of their own (agent.hb.<service>.…), under the bus users' real
 * permissions: the services answer each reply subject once, so nats-server forgets it as soon as
 * it is answered.
 */
const logger = pino({ level: "silent" });
const Reply = replySchema(z.object({ waited: z.number() }));

async function received(connection: NatsConnection, subject: string, act: () => Promise<void>, settleMs = 300): Promise<Msg[]> {
  const messages: Msg[] = [];
  const subscription = connection.subscribe(subject, {
    callback: (error, message) => {
      if (!error) messages.push(message);
    },
  });
  await connection.flush();
  await act();
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  subscription.unsubscribe();
  return messages;
}

describe("heartbeats under the bus users' own permissions", () => {
  let bus: TestBus;
  let tools: NatsConnection;
  let orchestrator: NatsConnection;
  beforeAll(async () => {
    bus = await startTestBus();
    tools = await bus.connectAs("tools");
    orchestrator = await bus.connectAs("orchestrator");
  });
  afterAll(async () => bus?.stop());

  it("every responder answers a reply subject once: no user keeps reply subjects for heartbeats", () => {
    for (const [user, permissions] of Object.entries(busPermissions())) {
      expect([undefined, true], `bus user ${user}`).toContain(permissions.allow_responses);
    }
  });

  it("a request longer than several heartbeat timeouts gets its heartbeats from the tools service, then its one reply", async () => {
    const endpoint = defineEndpoint({
      name: "slow",
      subject: "agent.tools.test_slow",
      schema: z.object({ ms: z.number() }),
      handle: async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { waited: ms };
      },
    });
    const service = await startService({ connection: tools, name: "tools-heartbeat-test", version: "0.0.1", description: "t", endpoints: [endpoint], logger });
    await tools.flush();
    try {
      // Silence for 600 ms would end the call INTERRUPTED; the handler takes 2.5 s.
      const reply = await busRequest(orchestrator, "agent.tools.test_slow", { ms: 2_500 }, Reply, { timeoutMs: 20_000, heartbeat: { intervalMs: 100, timeoutMs: 600, mayHaveRun: false } });
      expect(reply).toEqual({ waited: 2_500 });
    } finally {
      await service.stop(1_000);
    }
  });

  it("a service cannot send heartbeats under another service's name", async () => {
    const messages = await received(orchestrator, "agent.hb.*.*.*", async () => {
      tools.publish("agent.hb.model.someone.1");
      tools.publish("agent.hb.checkpoints.someone.2");
      tools.publish("agent.hb.tools.someone.3");
      await tools.flush();
    });
    expect(messages.map((message) => message.subject)).toEqual(["agent.hb.tools.someone.3"]);
  });

  it("a second response to the same reply subject does not reach the requester", async () => {
    const subscription = tools.subscribe("agent.tools.test_twice", {
      callback: (_error, message) => {
        message.respond(new TextEncoder().encode("first"));
        message.respond(new TextEncoder().encode("second"));
      },
    });
    await tools.flush();
    try {
      const inbox = createInbox("_INBOX_orchestrator");
      const messages = await received(
        orchestrator,
        inbox,
        async () => {
          orchestrator.publish("agent.tools.test_twice", new Uint8Array(), { reply: inbox });
          await orchestrator.flush();
        },
        500,
      );
      expect(messages.map((message) => new TextDecoder().decode(message.data))).toEqual(["first"]);
    } finally {
      subscription.unsubscribe();
    }
  });
});
