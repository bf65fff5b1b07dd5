/**
 * The requesting side of npm run bench:bus, a process of its own: connects with its credentials,
 * times `iterations` round trips to the echo service for each payload size, prints the samples
 * (microseconds) as one JSON line on stdout.
 */
import { connect } from "nats";
import { z } from "zod";
import { replySchema } from "@aide/contracts";
import { busRequest, decodeJson, encodeJson, readCredentialsFile, waitForService } from "@aide/runtime";

const EchoReply = replySchema(z.object({ id: z.number(), payload: z.string() }));

const iterations = Number(process.env.BENCH_ITERATIONS ?? 5000);
const warmup = 500;

async function main() {
  const creds = readCredentialsFile(process.env.AIDE_NATS_CREDS ?? "");
  const tls = process.env.AIDE_NATS_CA ? { tls: { caFile: process.env.AIDE_NATS_CA } } : {};
  const connection = await connect({ servers: process.env.AIDE_NATS_URL, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix, ...tls });
  await waitForService(connection, "bench-echo", { timeoutMs: 15_000 });
  if (process.env.BENCH_SUSTAINED) {
    // Many raw requests in a row to one responder connection (the bare subscription): what a
    // long-running service sees after thousands of requests, each with its own reply subject.
    const count = Number(process.env.BENCH_SUSTAINED);
    const body = encodeJson({ id: 0, payload: "x".repeat(64) });
    const list: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = process.hrtime.bigint();
      await connection.request("agent.bench.bare", body, { timeout: 5000 });
      list.push(Number(process.hrtime.bigint() - started) / 1000);
    }
    process.stdout.write(JSON.stringify({ sustained: list }) + "\n");
    await connection.close();
    return;
  }
  const samples: Record<string, number[]> = {};
  for (const [name, payload] of [
    ["small", "x".repeat(64)],
    ["64k", "y".repeat(64 * 1024)],
  ] as const) {
    const list: number[] = [];
    for (let i = 0; i < warmup + iterations; i++) {
      const started = process.hrtime.bigint();
      const reply = await connection.request("agent.bench.echo", encodeJson({ id: i, payload }), { timeout: 5000 });
      if (!(decodeJson(reply.data) as { ok: boolean }).ok) throw new Error("echo failed");
      if (i >= warmup) list.push(Number(process.hrtime.bigint() - started) / 1000);
    }
    samples[name] = list;
  }
  // The path services call each other by: busRequest with heartbeats (as the orchestrator calls
  // tools), the small payload, zod-validated reply; and its anchor, a raw request to a bare
  // subscription in the same echo process (the bus alone). The two alternate call by call, and
  // which goes first alternates, so neither is the warmer one.
  const viaBusRequest: number[] = [];
  const bare: number[] = [];
  const body = encodeJson({ id: 0, payload: "x".repeat(64) });
  const timed = async (list: number[], keep: boolean, call: () => Promise<unknown>) => {
    const started = process.hrtime.bigint();
    await call();
    if (keep) list.push(Number(process.hrtime.bigint() - started) / 1000);
  };
  for (let i = 0; i < warmup + iterations; i++) {
    const viaRuntime = () =>
      busRequest(connection, "agent.bench.echo", { id: i, payload: "x".repeat(64) }, EchoReply, { timeoutMs: 5000, heartbeat: { intervalMs: 5_000, timeoutMs: 20_000, mayHaveRun: false } });
    const viaBare = () => connection.request("agent.bench.bare", body, { timeout: 5000 });
    if (i % 2 === 0) {
      await timed(viaBusRequest, i >= warmup, viaRuntime);
      await timed(bare, i >= warmup, viaBare);
    } else {
      await timed(bare, i >= warmup, viaBare);
      await timed(viaBusRequest, i >= warmup, viaRuntime);
    }
  }
  samples.small_busrequest = viaBusRequest;
  samples.small_bare = bare;
  process.stdout.write(JSON.stringify(samples) + "\n");
  await connection.close();
}

await main();
