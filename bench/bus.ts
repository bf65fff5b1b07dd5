/**
 * npm run bench:bus — request/reply round trips between two real processes over the loopback
 * bus (this process requests; a spawned service process answers), a small payload and a 64 KB one,
 * against the same validated echo called as an in-process function, in one run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "nats";
import { encodeJson, decodeJson, startNatsServer } from "@aide/runtime";
import { echoEndpoint, EchoRequestSchema } from "./bus-echo-service.js";
import { percentile, writeBenchResult } from "./lib/results.js";

const warmup = 500;
const iterations = Number(process.env.BENCH_ITERATIONS ?? 5000);

async function main() {
  const runDir = mkdtempSync(join(tmpdir(), "aide-bench-bus-"));
  const server = await startNatsServer({
    runDir,
    extraUsers: {
      bench_responder: { publish: { deny: [">"] }, subscribe: { allow: ["agent.bench.>", "$SRV.>"] }, allow_responses: true },
      bench_requester: { publish: { allow: ["agent.bench.>", "$SRV.>"] }, subscribe: { allow: ["_INBOX_bench_requester.>"] } },
    },
  });
  const child = spawn(process.execPath, [join(import.meta.dirname, "bus-echo-service.js")], {
    env: { PATH: process.env.PATH ?? "", AIDE_NATS_URL: server.url, AIDE_NATS_CREDS: server.credentialFiles.bench_responder, AIDE_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const creds = server.credentials.bench_requester;
  const connection = await connect({ servers: server.url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix });
  try {
    for (let tries = 0; ; tries++) {
      try {
        await connection.request("$SRV.PING.aide-bench-echo", new Uint8Array(), { timeout: 300 });
        break;
      } catch {
        if (tries > 100) throw new Error("echo service did not start");
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const small = "x".repeat(64);
    const large = "y".repeat(64 * 1024);

    const busRoundTrips = async (payload: string) => {
      const samples: number[] = [];
      for (let i = 0; i < warmup + iterations; i++) {
        const started = process.hrtime.bigint();
        const reply = await connection.request("agent.bench.echo", encodeJson({ id: i, payload }), { timeout: 5000 });
        const body = decodeJson(reply.data) as { ok: boolean };
        if (!body.ok) throw new Error("echo failed");
        const elapsed = Number(process.hrtime.bigint() - started) / 1000;
        if (i >= warmup) samples.push(elapsed);
      }
      return samples;
    };
    const inProcess = async (payload: string) => {
      const samples: number[] = [];
      const controller = new AbortController();
      for (let i = 0; i < warmup + iterations; i++) {
        const started = process.hrtime.bigint();
        // The same work minus the bus: encode, decode, validate, handle, encode the reply, decode it.
        const request = EchoRequestSchema.parse(decodeJson(encodeJson({ id: i, payload })));
        const result = await echoEndpoint.handle(request, { subject: "", message: undefined as never, logger: undefined as never, signal: controller.signal });
        decodeJson(encodeJson({ ok: true, result }));
        const elapsed = Number(process.hrtime.bigint() - started) / 1000;
        if (i >= warmup) samples.push(elapsed);
      }
      return samples;
    };

    const busSmall = await busRoundTrips(small);
    const busLarge = await busRoundTrips(large);
    const localSmall = await inProcess(small);
    const localLarge = await inProcess(large);
    const round = (value: number) => Math.round(value * 10) / 10;
    const figures = {
      iterations,
      p50_us: round(percentile(busSmall, 50)),
      p99_us: round(percentile(busSmall, 99)),
      p50_us_64k: round(percentile(busLarge, 50)),
      p99_us_64k: round(percentile(busLarge, 99)),
      in_process_p50_us: round(percentile(localSmall, 50)),
      in_process_p99_us: round(percentile(localSmall, 99)),
      in_process_p50_us_64k: round(percentile(localLarge, 50)),
      in_process_p99_us_64k: round(percentile(localLarge, 99)),
      bus_overhead_p50_us: round(percentile(busSmall, 50) - percentile(localSmall, 50)),
      target: "p50 under 300 us for the small payload",
    };
    const path = writeBenchResult("bus", figures);
    process.stdout.write(JSON.stringify(figures, null, 2) + `\nwritten to ${path}\n`);
  } finally {
    await connection.close();
    child.kill("SIGTERM");
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

await main();
