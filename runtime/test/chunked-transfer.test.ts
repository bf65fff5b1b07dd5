import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { z } from "zod";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";
import { busRequest, createLogger, defineEndpoint, startService, type RunningService } from "../src/index.js";

const ReplySchema = z.union([
  z.object({ ok: z.literal(true), result: z.object({ length: z.number(), echo: z.string() }) }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
]);

/**
 * Bodies over the server's max payload (1 MiB here, the default) between the real bus users: the
 * orchestrator asks, the tools user answers, each with its generated permissions.
 */
describe("requests and replies over the bus's max payload (real nats-server, generated users)", () => {
  let bus: TestBus;
  let requester: NatsConnection;
  let responder: NatsConnection;
  let running: RunningService;
  const logger = createLogger("chunk-test", { level: "silent" });

  beforeAll(async () => {
    bus = await startTestBus();
    requester = await bus.connectAs("orchestrator");
    responder = await bus.connectAs("tools");
    running = await startService({
      connection: responder,
      name: "aide-chunk-test",
      version: "0.0.0",
      description: "echo",
      logger,
      maxRequestBytes: 8 * 1024 * 1024,
      endpoints: [
        defineEndpoint({
          name: "echo",
          subject: "agent.tools.echo-test",
          schema: z.object({ text: z.string(), repeat: z.number().int().positive().default(1) }),
          // The reply repeats the text: a small request may have a large reply.
          handle: async (request) => ({ length: request.text.length, echo: request.text.repeat(request.repeat) }),
        }),
      ],
    });
  });

  afterAll(async () => {
    await running?.stop(1000);
    await bus?.stop();
  });

  it("the server's max payload is the 1 MiB default", () => {
    expect(requester.info?.max_payload).toBe(1024 * 1024);
  });

  it("a 2.5 MB request and a 5 MB reply arrive byte-exact", async () => {
    const text = randomBytes(1_875_000).toString("base64");
    expect(text.length).toBe(2_500_000);
    const result = await busRequest(requester, "agent.tools.echo-test", { text, repeat: 2 }, ReplySchema, { timeoutMs: 30_000 });
    expect(result.length).toBe(text.length);
    expect(result.echo.length).toBe(5_000_000);
    expect(result.echo === text + text).toBe(true);
  });

  it("a small request with a 1.5 MB reply (non-ASCII text, split inside characters) arrives whole", async () => {
    const text = "é✓🙂".repeat(50_000);
    const result = await busRequest(requester, "agent.tools.echo-test", { text, repeat: 3 }, ReplySchema, { timeoutMs: 30_000 });
    expect(Buffer.byteLength(result.echo)).toBeGreaterThan(1024 * 1024);
    expect(result.echo === text.repeat(3)).toBe(true);
  });

  it("many large requests at once each get their own reply", async () => {
    const texts = Array.from({ length: 6 }, (_, index) => String.fromCharCode(97 + index).repeat(1_200_000 + index));
    const results = await Promise.all(texts.map((text) => busRequest(requester, "agent.tools.echo-test", { text }, ReplySchema, { timeoutMs: 60_000 })));
    expect(results.map((result) => result.echo === texts[results.indexOf(result)])).toEqual(texts.map(() => true));
  });

  it("a request over the service's whole-message limit is PAYLOAD_TOO_LARGE, and the service keeps serving", async () => {
    const text = "x".repeat(9 * 1024 * 1024);
    await expect(busRequest(requester, "agent.tools.echo-test", { text }, ReplySchema, { timeoutMs: 30_000 })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    const small = await busRequest(requester, "agent.tools.echo-test", { text: "still here" }, ReplySchema, { timeoutMs: 10_000 });
    expect(small.echo).toBe("still here");
  });

  it("a reply over the whole-message limit is PAYLOAD_TOO_LARGE, not a cut body", async () => {
    const text = "y".repeat(3 * 1024 * 1024);
    await expect(busRequest(requester, "agent.tools.echo-test", { text, repeat: 3 }, ReplySchema, { timeoutMs: 30_000 })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });
});
