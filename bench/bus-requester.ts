/**
 * The requesting side of npm run bench:bus, a process of its own: connects with its credentials,
 * times `iterations` round trips to the echo service for each payload size, prints the samples
 * (microseconds) as one JSON line on stdout.
 */
import { connect } from "nats";
import { decodeJson, encodeJson, readCredentialsFile } from "@aide/runtime";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 5000);
const warmup = 500;

async function main() {
  const creds = readCredentialsFile(process.env.AIDE_NATS_CREDS ?? "");
  const connection = await connect({ servers: process.env.AIDE_NATS_URL, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix });
  for (let tries = 0; ; tries++) {
    try {
      await connection.request("$SRV.PING.aide-bench-echo", new Uint8Array(), { timeout: 300 });
      break;
    } catch {
      if (tries > 200) throw new Error("echo service did not start");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const samples: Record<string, number[]> = {};
  for (const [name, payload] of [["small", "x".repeat(64)], ["64k", "y".repeat(64 * 1024)]] as const) {
    const list: number[] = [];
    for (let i = 0; i < warmup + iterations; i++) {
      const started = process.hrtime.bigint();
      const reply = await connection.request("agent.bench.echo", encodeJson({ id: i, payload }), { timeout: 5000 });
      if (!(decodeJson(reply.data) as { ok: boolean }).ok) throw new Error("echo failed");
      if (i >= warmup) list.push(Number(process.hrtime.bigint() - started) / 1000);
    }
    samples[name] = list;
  }
  process.stdout.write(JSON.stringify(samples) + "\n");
  await connection.close();
}

await main();
