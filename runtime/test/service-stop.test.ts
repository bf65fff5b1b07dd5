import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { z } from "zod";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";
import { busRequest, createLogger, defineEndpoint, startService } from "../src/index.js";

const ReplySchema = z.union([
  z.object({ ok: z.literal(true), result: z.object({ done: z.string() }) }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) }),
]);

/** startService's stop: every request it took gets an answer within the grace, finished or refused. */
describe("stopping a service with requests in flight (real nats-server)", () => {
  let bus: TestBus;
  let client: NatsConnection;
  const logger = createLogger("stop-test", { level: "silent" });
  beforeAll(async () => {
    bus = await startTestBus();
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => bus?.stop());

  it("finishes what finishes within the grace, answers the rest UNAVAILABLE (shutting_down, retry hint), and takes no new requests", async () => {
    const connection = await bus.connectAs("tools");
    const release = new Map<string, () => void>();
    const running = await startService({
      connection,
      name: "aide-stop-test",
      version: "0.0.0",
      description: "holds requests",
      logger,
      endpoints: [
        defineEndpoint({
          name: "hold",
          subject: "agent.tools.hold-test",
          schema: z.object({ id: z.string() }),
          // Ignores its signal on purpose: a handler stuck on something it cannot abort.
          handle: (request) => new Promise((resolve) => release.set(request.id, () => resolve({ done: request.id }))),
        }),
      ],
    });
    const calls = Array.from({ length: 20 }, (_, index) =>
      busRequest(client, "agent.tools.hold-test", { id: `r${index}` }, ReplySchema, { timeoutMs: 30_000 }).then(
        (result) => ({ ok: true as const, done: result.done }),
        (error: { code: string; details?: Record<string, unknown> }) => ({ ok: false as const, code: error.code, details: error.details }),
      ),
    );
    for (let tries = 0; release.size < 20 && tries < 400; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(running.inFlight()).toBe(20);

    const stopped = running.stop(800);
    for (let index = 0; index < 5; index += 1) release.get(`r${index}`)!();
    await stopped;
    const results = await Promise.all(calls);
    expect(
      results
        .filter((result) => result.ok)
        .map((result) => (result as { done: string }).done)
        .sort(),
    ).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    const refused = results.filter((result) => !result.ok) as Array<{ code: string; details?: Record<string, unknown> }>;
    expect(refused.length).toBe(15);
    for (const result of refused) {
      expect(result.code).toBe("UNAVAILABLE");
      expect(result.details).toMatchObject({ reason: "shutting_down", retryable: true });
      expect(result.details?.retry_after_ms).toBeGreaterThan(0);
    }
    // A handler finishing after its request was answered changes nothing.
    for (let index = 5; index < 20; index += 1) release.get(`r${index}`)!();
    // Stopped: the endpoint has left the bus; a new request finds no responder.
    await expect(busRequest(client, "agent.tools.hold-test", { id: "late" }, ReplySchema, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: "UNAVAILABLE" });
    await connection.close();
  });
});
