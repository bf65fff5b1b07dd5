import { createServer, connect as connectTcp, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "nats";
import { z } from "zod";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";
import { busRequest, createLogger, defineEndpoint, startService } from "../src/index.js";

const ReplySchema = z.union([
  z.object({ ok: z.literal(true), result: z.object({ echoed: z.string() }) }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) }),
]);

/**
 * A loopback TCP relay in front of nats-server whose client-to-server direction can be held:
 * while held, what the client writes waits here (so the server has not read it yet).
 */
interface HoldingRelay {
  port: number;
  hold(): void;
  /** Resolves once the held bytes contain `text`. */
  holding(text: string): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

async function startHoldingRelay(target: URL): Promise<HoldingRelay> {
  let held: Buffer[] | undefined;
  let upstream: Socket | undefined;
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const sockets: Socket[] = [];
  const check = () => {
    const text = Buffer.concat(held ?? []).toString("latin1");
    for (const waiter of [...waiters]) {
      if (!text.includes(waiter.text)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const listener: Server = createServer((client) => {
    const toServer = connectTcp(Number(target.port), target.hostname);
    upstream = toServer;
    sockets.push(client, toServer);
    toServer.on("data", (chunk) => client.write(chunk));
    client.on("data", (chunk) => {
      if (held === undefined) toServer.write(chunk);
      else {
        held.push(chunk);
        check();
      }
    });
    for (const socket of [client, toServer]) socket.on("error", () => undefined);
    client.on("close", () => toServer.destroy());
    toServer.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  return {
    port: (listener.address() as { port: number }).port,
    hold: () => {
      held = [];
    },
    holding: (text) =>
      new Promise((resolve) => {
        waiters.push({ text, resolve });
        check();
      }),
    release: () => {
      const chunks = held ?? [];
      held = undefined;
      for (const chunk of chunks) upstream?.write(chunk);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/**
 * startService resolves only once nats-server has the endpoints' subscriptions: a request another
 * connection sends the moment it resolves is answered, not refused for want of a responder (the
 * race service-stop.test.ts lost under load, 0 of 20 requests arriving).
 */
describe("a started service is registered on the server (real nats-server)", () => {
  let bus: TestBus;
  let relay: HoldingRelay;
  let client: NatsConnection;
  const logger = createLogger("registration-test", { level: "silent" });
  beforeAll(async () => {
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
    relay = await startHoldingRelay(new URL(bus.url.replace(/^nats:/, "http:")));
  });
  afterAll(async () => {
    await relay?.close();
    await bus?.stop();
  });

  it("answers a request from another connection sent as soon as startService resolves, even when the server reads the service's connection late", async () => {
    const creds = bus.credentials("tools");
    const connection = await connect({ servers: `127.0.0.1:${relay.port}`, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix, reconnect: false });
    relay.hold();
    let resolved = false;
    const started = startService({
      connection,
      name: "aide-registration-test",
      version: "0.0.0",
      description: "echoes",
      logger,
      endpoints: [defineEndpoint({ name: "echo", subject: "agent.tools.registration-test", schema: z.object({ text: z.string() }), handle: async (request) => ({ echoed: request.text }) })],
    });
    // The request goes out the moment startService says the service is up.
    const answered = started.then((running) => {
      resolved = true;
      return busRequest(client, "agent.tools.registration-test", { text: "hi" }, ReplySchema, { timeoutMs: 10_000 }).then(
        (result) => ({ running, outcome: result.echoed }),
        (error: { code: string; details?: { reason?: string } }) => ({ running, outcome: `${error.code} ${error.details?.reason ?? ""}` }),
      );
    });
    // The endpoint's SUB has been written and sits in the relay: the server has not read it.
    await relay.holding("SUB agent.tools.registration-test");
    // A startService that has already resolved has let its request go out unanswerable: wait for
    // that answer before the relay lets the subscription through.
    if (resolved) await answered;
    relay.release();
    const { running, outcome } = await answered;
    expect(outcome).toBe("hi");
    await running.stop(1_000);
    await connection.close();
  });
});
