import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "nats";
import { findNatsServer, readCredentialsFile, writeClusterConfig, ClusterFileSchema, type GeneratedCluster } from "@aide/runtime";
import { repoRoot } from "../helpers/service-process.js";
import { loopbackClusterFile, startCluster, waitForClusterFormed, type TestCluster } from "../helpers/nats-cluster.js";

const aide = join(repoRoot, "cli", "bin", "aide.js");
const skip = findNatsServer() ? "" : " [SKIPPED: nats-server is not installed]";

function busConfig(args: string[]) {
  return spawnSync(process.execPath, [aide, "bus-config", ...args], { encoding: "utf8", timeout: 60_000 });
}

/** Issue 14 item 4: `aide bus-config --cluster` writes configs three real nats-servers form a cluster from. */
describe.skipIf(skip !== "")(`aide bus-config for a 3-node cluster${skip}`, () => {
  let dir: string;
  let out: string;
  let cluster: TestCluster;
  let generated: GeneratedCluster;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aide-cluster-"));
    out = join(dir, "bus");
    const clusterFile = join(dir, "cluster.json");
    writeFileSync(clusterFile, JSON.stringify(await loopbackClusterFile(3)));
    const written = busConfig(["--out", out, "--cluster-file", clusterFile]);
    expect(written.status, written.stderr).toBe(0);
    // The generator's own view of what the CLI wrote (a second run without --rotate changes nothing it needs).
    generated = writeClusterConfig({ outDir: out, cluster: ClusterFileSchema.parse(JSON.parse(readFileSync(clusterFile, "utf8"))) });
    expect(generated.certificatesCreated).toBe(false);
    cluster = startCluster(generated);
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("forms: every node routes to the two others and all agree on one JetStream meta leader", async () => {
    const formed = await waitForClusterFormed(cluster);
    expect(generated.nodes.map((node) => node.name)).toContain(formed.leader);
    expect(new Set(generated.nodes.map((node) => node.name)).size).toBe(3);
    for (const node of generated.nodes) {
      const config = readFileSync(node.configPath, "utf8");
      expect(config).toContain(`server_name: "${node.name}"`);
      expect(config).toContain("verify: true");
      expect(config).toContain(node.storeDir);
    }
  });

  it("a service's credentials authenticate on every node over TLS with the one CA; a foreign credential on none", async () => {
    const tools = readCredentialsFile(generated.credentialFiles.tools!);
    const foreignOut = join(dir, "foreign");
    expect(busConfig(["--out", foreignOut, "--cluster", "1", "--no-tls"]).status).toBe(0);
    const foreign = readCredentialsFile(join(foreignOut, "credentials", "tools.json"));
    expect(foreign.password).not.toBe(tools.password);
    for (const node of cluster.nodes) {
      const connection = await connect({
        servers: node.url,
        user: tools.user,
        pass: tools.password,
        inboxPrefix: tools.inbox_prefix,
        tls: { caFile: generated.caFile! },
        reconnect: false,
        timeout: 5000,
      });
      expect(connection.info?.server_name).toBe(node.name);
      await connection.close();
      await expect(connect({ servers: node.url, user: foreign.user, pass: foreign.password, tls: { caFile: generated.caFile! }, reconnect: false, timeout: 5000 })).rejects.toThrow(/authorization/i);
    }
  });

  it("a second run keeps the credentials and CA; --rotate replaces them", () => {
    const before = readFileSync(generated.credentialFiles.tools!, "utf8");
    const ca = readFileSync(generated.caFile!, "utf8");
    const again = busConfig(["--out", join(dir, "again"), "--cluster", "3", "--host", "127.0.0.1"]);
    expect(again.status, again.stderr).toBe(0);
    const firstRun = readFileSync(join(dir, "again", "credentials", "tools.json"), "utf8");
    expect(busConfig(["--out", join(dir, "again"), "--cluster", "3"]).status).toBe(0);
    expect(readFileSync(join(dir, "again", "credentials", "tools.json"), "utf8")).toBe(firstRun);
    const names = [1, 2, 3].map((index) => readFileSync(join(dir, "again", `aide-${index}`, "nats-server.conf"), "utf8"));
    expect(names[0]).toContain("127.0.0.1:6234");
    expect(names[0]).toContain("127.0.0.1:6235");
    expect(names[0]).not.toContain('127.0.0.1:6233"]');
    expect(busConfig(["--out", join(dir, "again"), "--cluster", "3", "--rotate"]).status).toBe(0);
    expect(readFileSync(join(dir, "again", "credentials", "tools.json"), "utf8")).not.toBe(firstRun);
    // The running cluster's files were not touched by the other directory's runs.
    expect(readFileSync(generated.credentialFiles.tools!, "utf8")).toBe(before);
    expect(readFileSync(generated.caFile!, "utf8")).toBe(ca);
    const refused = busConfig(["--out", join(dir, "bad"), "--cluster", "3", "--host", "a,b"]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("--host names 2 hosts for 3 nodes");
  });
});
