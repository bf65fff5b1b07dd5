import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { z } from "zod";
import pino from "pino";
import { replySchema } from "@aide/contracts";
import { busRequest, defineEndpoint, startService, type RunningService } from "@aide/runtime";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";

const logger = pino({ level: "silent" });
const Reply = replySchema(z.object({ session: z.string(), index: z.number() }));

/** A service whose handler holds each request until the test lets it go, recording the order it started them. */
function gatedEndpoint(started: string[]) {
  const gates: Array<() => void> = [];
  const endpoint = defineEndpoint({
    name: "work",
    subject: "test.work",
    schema: z.object({ session: z.string(), index: z.number() }),
    handle: async (request) => {
      started.push(`${request.session}#${request.index}`);
      await new Promise<void>((resolve) => gates.push(resolve));
      return request;
    },
  });
  const releaseOne = async () => {
    while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    gates.shift()?.();
  };
  return { endpoint, releaseOne, held: () => gates.length };
}

describe("fair admission and busy retries over a real nats-server", () => {
  let bus: TestBus;
  let serviceSide: NatsConnection;
  let client: NatsConnection;
  beforeAll(async () => {
    bus = await startTestBus();
    serviceSide = await bus.connectAs("tester");
    client = await bus.connectAs("tester");
  });
  afterAll(async () => bus?.stop());

  it("one session's burst does not starve another: its single request is served before the burst drains", async () => {
    const started: string[] = [];
    const gated = gatedEndpoint(started);
    const service: RunningService = await startService({
      connection: serviceSide,
      name: "fair-test",
      version: "0.0.1",
      description: "t",
      endpoints: [gated.endpoint],
      logger,
      maxConcurrent: 1,
      maxQueued: 32,
      maxQueuedPerSession: 16,
      maxQueueWaitMs: 0,
    });
    await serviceSide.flush();
    try {
      const burst = Array.from({ length: 8 }, (_, index) => busRequest(client, "test.work", { session: "burst", index }, Reply, { timeoutMs: 30_000 }));
      // Every burst request is at the service (one running, seven waiting) before the other session asks.
      while (service.inFlight() < 8) await new Promise((resolve) => setTimeout(resolve, 10));
      const single = busRequest(client, "test.work", { session: "other", index: 0 }, Reply, { timeoutMs: 30_000 });
      while (service.inFlight() < 9) await new Promise((resolve) => setTimeout(resolve, 10));
      for (let count = 0; count < 9; count += 1) await gated.releaseOne();
      await Promise.all([...burst, single]);
      expect(started.indexOf("other#0")).toBeLessThanOrEqual(2);
      expect(started.filter((entry) => entry.startsWith("burst#"))).toEqual(Array.from({ length: 8 }, (_, index) => `burst#${index}`));
    } finally {
      await service.stop(1_000);
    }
  });

  it("a full queue answers BUSY with a retry hint; a request with a retry policy waits it out instead", async () => {
    const started: string[] = [];
    const gated = gatedEndpoint(started);
    const service = await startService({
      connection: serviceSide,
      name: "busy-test",
      version: "0.0.1",
      description: "t",
      endpoints: [gated.endpoint],
      logger,
      maxConcurrent: 1,
      maxQueued: 1,
      maxQueuedPerSession: 1,
      maxQueueWaitMs: 0,
    });
    await serviceSide.flush();
    try {
      const first = busRequest(client, "test.work", { session: "a", index: 0 }, Reply, { timeoutMs: 30_000 });
      const second = busRequest(client, "test.work", { session: "a", index: 1 }, Reply, { timeoutMs: 30_000 });
      while (service.inFlight() < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      const refused = await busRequest(client, "test.work", { session: "a", index: 2 }, Reply, { timeoutMs: 30_000 }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: "BUSY", details: { queue: "requests" } });
      expect((refused as { details: { retry_after_ms: number } }).details.retry_after_ms).toBeGreaterThan(0);
      const patient = busRequest(client, "test.work", { session: "a", index: 3 }, Reply, { timeoutMs: 30_000, retry: { deadlineMs: 60_000, maxDelayMs: 200 } });
      // Let the first two finish; the patient one gets in on a retry and succeeds.
      await gated.releaseOne();
      await gated.releaseOne();
      await Promise.all([first, second]);
      await gated.releaseOne();
      await expect(patient).resolves.toMatchObject({ index: 3 });
    } finally {
      await service.stop(1_000);
    }
  });

  it("a retry policy whose deadline is spent ends UNAVAILABLE (reason busy), never BUSY", async () => {
    const started: string[] = [];
    const gated = gatedEndpoint(started);
    const service = await startService({
      connection: serviceSide,
      name: "spent-test",
      version: "0.0.1",
      description: "t",
      endpoints: [gated.endpoint],
      logger,
      maxConcurrent: 1,
      maxQueued: 0,
      maxQueuedPerSession: 0,
      maxQueueWaitMs: 0,
    });
    await serviceSide.flush();
    try {
      const holder = busRequest(client, "test.work", { session: "a", index: 0 }, Reply, { timeoutMs: 30_000 });
      while (service.inFlight() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const error = await busRequest(client, "test.work", { session: "b", index: 0 }, Reply, { timeoutMs: 5_000, retry: { deadlineMs: 500, maxDelayMs: 50 } }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "UNAVAILABLE", details: { reason: "busy" } });
      await gated.releaseOne();
      await holder;
    } finally {
      await service.stop(1_000);
    }
  });

  it("a responder that disappears mid-request is noticed by its missing heartbeats: INTERRUPTED, long before the timeout", async () => {
    const dying = await bus.connectAs("tester");
    const started: string[] = [];
    const gated = gatedEndpoint(started);
    const service = await startService({ connection: dying, name: "dying-test", version: "0.0.1", description: "t", endpoints: [gated.endpoint], logger, maxConcurrent: 4 });
    await dying.flush();
    const call = busRequest(client, "test.work", { session: "a", index: 0 }, Reply, { timeoutMs: 600_000, heartbeat: { intervalMs: 200, timeoutMs: 2_000, mayHaveRun: true } });
    while (service.inFlight() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    // A few heartbeats reach the requester, then the responder's connection is gone (as with kill -9).
    await new Promise((resolve) => setTimeout(resolve, 600));
    await dying.close();
    const error = await call.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "INTERRUPTED", details: { reason: "heartbeat_lost", may_have_run: true } });
    gated.releaseOne();
  });

  it("a long request with heartbeats still gets its reply", async () => {
    const started: string[] = [];
    const gated = gatedEndpoint(started);
    const service = await startService({ connection: serviceSide, name: "beat-test", version: "0.0.1", description: "t", endpoints: [gated.endpoint], logger });
    await serviceSide.flush();
    try {
      const call = busRequest(client, "test.work", { session: "a", index: 7 }, Reply, { timeoutMs: 30_000, heartbeat: { intervalMs: 100, timeoutMs: 3_000, mayHaveRun: false } });
      while (service.inFlight() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      await gated.releaseOne();
      await expect(call).resolves.toMatchObject({ index: 7 });
    } finally {
      await service.stop(1_000);
    }
  });

  it("many heartbeat requests at once on one connection (one shared reply subscription) each get their own reply", async () => {
    const started: string[] = [];
    const gated = gatedEndpoint(started);
    const service = await startService({ connection: serviceSide, name: "shared-beat-test", version: "0.0.1", description: "t", endpoints: [gated.endpoint], logger });
    await serviceSide.flush();
    try {
      const calls = Array.from({ length: 12 }, (_, index) =>
        busRequest(client, "test.work", { session: `s${index % 3}`, index }, Reply, { timeoutMs: 30_000, heartbeat: { intervalMs: 100, timeoutMs: 3_000, mayHaveRun: false } }),
      );
      while (service.inFlight() < 12 || gated.held() < 12) await new Promise((resolve) => setTimeout(resolve, 10));
      for (let index = 0; index < 12; index += 1) await gated.releaseOne();
      const replies = await Promise.all(calls);
      expect(replies.map((reply) => reply.index)).toEqual(Array.from({ length: 12 }, (_, index) => index));
      expect(replies.map((reply) => reply.session)).toEqual(Array.from({ length: 12 }, (_, index) => `s${index % 3}`));
      // And a request after them still works on the same connection.
      const later = busRequest(client, "test.work", { session: "z", index: 99 }, Reply, { timeoutMs: 30_000, heartbeat: { intervalMs: 100, timeoutMs: 3_000, mayHaveRun: false } });
      await gated.releaseOne();
      await expect(later).resolves.toMatchObject({ index: 99 });
    } finally {
      await service.stop(1_000);
    }
  });
});
