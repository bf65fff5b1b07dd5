/**
 * bench:failover — how long a run is without an orchestrator after its owner dies, per lease
 * setting (AIDE_LEASE_MS). Real processes: nats-server with JetStream, model (scripted), tools,
 * checkpoints and two orchestrators. A session waits for an approval; its owner is killed with
 * SIGKILL; measured: from the kill to the survivor's re-offered `approval.requested` (same id).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { startNatsServer, waitForService } from "@aide/runtime";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";

const leases = [3_000, 10_000];
const trialsPerLease = 3;

function startProcess(name: string, url: string, creds: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [join(repoRoot, "services", name, "dist", "main.js")], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_NATS_URL: url, AIDE_NATS_CREDS: creds, AIDE_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function request(tester: NatsConnection, subject: string, body: unknown): Promise<any> {
  const reply = await tester.request(subject, new TextEncoder().encode(JSON.stringify(body)), { timeout: 20_000 });
  return JSON.parse(new TextDecoder().decode(reply.data));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "aide-bench-failover-"));
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const trials = leases.length * trialsPerLease;
  const models = Array.from({ length: trials }, (_, index) => {
    const transcript = join(dir, `t${index}.json`);
    writeFileSync(transcript, JSON.stringify({ replies: [{ text: `<write_file>\n<path>f${index}.txt</path>\n<content>\nx\n</content>\n</write_file>` }] }));
    return { id: `t${index}`, provider: "scripted", transcript };
  });
  writeFileSync(join(dir, "models.json"), JSON.stringify({ default: "t0", models }));
  const server = await startNatsServer({ runDir: join(dir, "bus"), extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
  const tester = await connect({ servers: server.url, user: "tester", pass: server.credentials.tester.password, inboxPrefix: server.credentials.tester.inbox_prefix });
  const events: Array<{ at: number; session: string; type: string; seq: number; payload: any }> = [];
  tester.subscribe("agent.evt.>", { callback: (_error, message) => events.push({ at: performance.now(), ...JSON.parse(new TextDecoder().decode(message.data)) }) });
  const children: ChildProcess[] = [];
  const roots = { AIDE_WORKSPACE_ROOTS: dir };
  const waitFor = async (predicate: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error("timed out");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const results: Record<string, number[]> = {};
  try {
    children.push(startProcess("model", server.url, server.credentialFiles.model, { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: join(dir, "home") }));
    children.push(startProcess("tools", server.url, server.credentialFiles.tools, { ...roots, AIDE_HOME: join(dir, "home") }));
    children.push(startProcess("checkpoints", server.url, server.credentialFiles.checkpoints, roots));
    for (const name of ["model", "tools", "checkpoints"]) await waitForService(tester, name, { timeoutMs: 30_000 });
    let trial = 0;
    for (const leaseMs of leases) {
      results[leaseMs] = [];
      const orchestrators: Record<string, ChildProcess> = {};
      const startOrchestrator = (id: string) => {
        orchestrators[id] = startProcess("orchestrator", server.url, server.credentialFiles.orchestrator, { ...roots, AIDE_ORCHESTRATOR_ID: `${id}-${leaseMs}`, AIDE_LEASE_MS: String(leaseMs) });
      };
      startOrchestrator("a");
      startOrchestrator("b");
      await waitForService(tester, "orchestrator", { timeoutMs: 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      for (let index = 0; index < trialsPerLease; index += 1, trial += 1) {
        const started = await request(tester, "agent.cmd.start", { task: `Create f${trial}.txt`, workspace, model: `t${trial}`, allow_concurrent: true });
        if (!started.ok) throw new Error(JSON.stringify(started));
        const session = started.result.session as string;
        await waitFor(() => events.some((e) => e.session === session && e.type === "approval.requested"), 30_000);
        const first = events.find((e) => e.session === session && e.type === "approval.requested")!;
        const kv = await tester.jetstream().views.kv("aide_sessions");
        const owner = JSON.parse(new TextDecoder().decode((await kv.get(session))!.value)).owner as string;
        const victim = owner.startsWith("a-") ? "a" : "b";
        const killedAt = performance.now();
        orchestrators[victim]!.kill("SIGKILL");
        await waitFor(() => events.some((e) => e.session === session && e.type === "approval.requested" && e.seq > first.seq), leaseMs * 4 + 30_000);
        const again = events.find((e) => e.session === session && e.type === "approval.requested" && e.seq > first.seq)!;
        if (again.payload.approval !== first.payload.approval) throw new Error("the re-offered approval has another id");
        results[leaseMs]!.push(Math.round(again.at - killedAt));
        await request(tester, "agent.cmd.abort", { session, reason: "bench" });
        startOrchestrator(victim);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      for (const child of Object.values(orchestrators)) child.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const figures = {
      trials_per_lease: trialsPerLease,
      takeover_ms: results,
      takeover_ms_median: Object.fromEntries(Object.entries(results).map(([lease, samples]) => [lease, percentile(samples, 50)])),
      load_average_1m: Math.round(loadavg()[0] * 10) / 10,
      note: "From SIGKILL of the run's owning orchestrator to the surviving instance's re-offered approval.requested (same approval id, nothing re-run), by AIDE_LEASE_MS. The owner renews every third of the lease and a survivor sweeps every half lease, so a takeover comes between 2/3 and 1.5 leases after the kill; a shorter lease fails over sooner and costs more KV writes. Shared 2-core machine, other suites running.",
    };
    const path = writeBenchResult("failover", figures);
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\nwritten to ${path}\n`);
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await tester.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
