import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "nats";
import { findNatsServer, readCredentialsFile, writeClusterConfig, ClusterFileSchema, type GeneratedCluster } from "@aide/runtime";
import { repoRoot } from "../helpers/service-process.js";
import { loopbackClusterFile, startCluster, type TestCluster } from "../helpers/nats-cluster.js";

const skip = findNatsServer() ? "" : " [SKIPPED: nats-server is not installed]";

/** Issue 14 item 4: `aide up --services tools --nats URL --bus-dir DIR` runs only the tools service, sandboxed, on an external TLS bus. */
describe.skipIf(skip !== "")(`aide up --services against an external bus${skip}`, () => {
  let dir: string;
  let bus: TestCluster;
  let generated: GeneratedCluster;
  let supervisor: ChildProcess;
  let output = "";
  let pinger: NatsConnection;
  let orchestrator: NatsConnection;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aide-subset-"));
    const clusterFile = join(dir, "cluster.json");
    writeFileSync(clusterFile, JSON.stringify(await loopbackClusterFile(1)));
    const written = spawnSync(process.execPath, [join(repoRoot, "cli", "bin", "aide.js"), "bus-config", "--out", join(dir, "bus"), "--cluster-file", clusterFile], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(written.status, written.stderr).toBe(0);
    generated = writeClusterConfig({ outDir: join(dir, "bus"), cluster: ClusterFileSchema.parse(JSON.parse(readFileSync(clusterFile, "utf8"))) });
    bus = startCluster(generated);
    const as = async (user: string) => {
      const creds = readCredentialsFile(generated.credentialFiles[user]!);
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await connect({ servers: generated.urls, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix, tls: { caFile: generated.caFile! }, reconnect: false });
        } catch (error) {
          if (attempt > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    pinger = await as("supervisor");
    orchestrator = await as("orchestrator");
    const workspace = join(dir, "workspace");
    spawnSync("mkdir", ["-p", workspace]);
    writeFileSync(join(workspace, "hello.txt"), "hello from the workspace host\n");
    supervisor = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "up", "--services", "tools", "--nats", generated.urls, "--bus-dir", join(dir, "bus"), "--workspace", workspace], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_HOME: join(dir, "home") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    supervisor.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    supervisor.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 90_000;
    while (!output.includes("aide is up")) {
      if (supervisor.exitCode !== null || Date.now() > deadline) throw new Error(`aide up failed:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 120_000);

  afterAll(async () => {
    if (supervisor && supervisor.exitCode === null) {
      const exited = new Promise((resolve) => supervisor.once("exit", resolve));
      supervisor.kill("SIGINT");
      await exited;
    }
    await pinger?.close();
    await orchestrator?.close();
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function pingIds(): Promise<Array<{ name: string; id: string }>> {
    const replies: Array<{ name: string; id: string }> = [];
    const inbox = `_INBOX_supervisor.ping-${Date.now()}`;
    // While nothing answers, the server sends an empty no-responders status instead of a reply.
    const subscription = pinger.subscribe(inbox, { callback: (_error, message) => void (message.data.length > 0 && replies.push(JSON.parse(new TextDecoder().decode(message.data)))) });
    pinger.publish("$SRV.PING", new Uint8Array(), { reply: inbox });
    await new Promise((resolve) => setTimeout(resolve, 700));
    subscription.unsubscribe();
    return replies;
  }

  it("runs the tools service only, which answers over the external bus and reads the workspace", async () => {
    expect(output).toContain("part of a stack: tools");
    const running = await pingIds();
    expect(running.map((reply) => reply.name)).toEqual(["aide-tools"]);
    const listed = JSON.parse(new TextDecoder().decode((await orchestrator.request("agent.tools.list", new TextEncoder().encode("{}"), { timeout: 10_000 })).data));
    expect(listed.ok).toBe(true);
    expect(existsNoStackFile()).toBe(true);
  });

  it("restarts the tools service when it dies, as a whole stack would", async () => {
    const pid = Number(/tools:(\d+)/.exec(output)?.[1]);
    expect(pid).toBeGreaterThan(0);
    const before = (await pingIds()).find((reply) => reply.name === "aide-tools")!.id;
    process.kill(pid, "SIGKILL");
    let after: string | undefined;
    for (let attempt = 0; attempt < 100 && (!after || after === before); attempt += 1) {
      after = (await pingIds()).find((reply) => reply.name === "aide-tools")?.id;
    }
    const log = () => output + readFileSync(join(dir, "home", "logs", "tools.log"), "utf8").slice(-3000) + readFileSync(join(dir, "home", "logs", "supervisor.log"), "utf8").slice(-3000);
    expect(after, log()).toBeDefined();
    expect(after, output).not.toBe(before);
  }, 90_000);

  function existsNoStackFile(): boolean {
    try {
      readFileSync(join(dir, "home", "stack.json"));
      return false;
    } catch {
      return true;
    }
  }
});
