import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/service-process.js";
import { postJson, readEvents, startStackProcess } from "../helpers/stack-process.js";
import { startFakeServer, type FakeServer } from "../../services/model/test/fake-openai-server.js";

/**
 * Issue 8: each service runs in its own bubblewrap profile. We look from inside each running
 * service by entering its mount namespace with nsenter (as root): what the service cannot see or
 * write there, it cannot see or write at all.
 */
interface Stack {
  services: Record<string, { pid: number }>;
}

function inside(pid: number, script: string): { ok: boolean; output: string } {
  const result = spawnSync("nsenter", ["-t", String(pid), "-m", "--", "sh", "-c", script], { encoding: "utf8", timeout: 10_000 });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

describe("service sandboxes (aide up, real bubblewrap profiles)", () => {
  let root: string;
  let home: string;
  let aideHomeDir: string;
  let workspace: string;
  let supervisor: ChildProcess;
  let output = "";
  let stack: Stack;
  let ollama: FakeServer;

  beforeAll(async () => {
    // A model server on loopback that the sandboxed model service must find (shared network namespace).
    ollama = await startFakeServer({ models: ["qwen-coder"] });
    root = mkdtempSync(join(tmpdir(), "aide-sbx-"));
    home = join(root, "home");
    aideHomeDir = join(home, ".aide");
    workspace = join(root, "workspace");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_canary"), "CANARY-PRIVATE-KEY\n", { mode: 0o600 });
    mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
    writeFileSync(join(workspace, "secret-source.ts"), "export const x = 1;\n");
    // One MCP server, started by the sandboxed MCP service inside a sandbox of its own (nested bubblewrap).
    mkdirSync(aideHomeDir, { recursive: true, mode: 0o700 });
    // An earlier `aide eval` run's report, for the gateway's GET /api/eval/latest (read-only in its sandbox).
    mkdirSync(join(aideHomeDir, "eval", "run-sbx"), { recursive: true });
    writeFileSync(join(aideHomeDir, "eval", "run-sbx", "report.json"), JSON.stringify({ tasks: 3 }));
    writeFileSync(
      join(aideHomeDir, "mcp.json"),
      JSON.stringify({ servers: { hostile: { command: process.execPath, args: [join(repoRoot, "services", "mcp", "test", "fixtures", "hostile-server.mjs")] } } }),
    );
    supervisor = spawn(
      process.execPath,
      [
        join(repoRoot, "cli", "dist", "main.js"),
        "up",
        "--nats-port",
        "0",
        "--gateway-port",
        "0",
        "--workspace",
        workspace,
        "--model-discovery",
        `ollama=${new URL(ollama.url).port},llamacpp=0,lmstudio=0,vllm=0`,
      ],
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: aideHomeDir },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    supervisor.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    supervisor.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 90_000;
    while (!output.includes("aide is up")) {
      if (supervisor.exitCode !== null || Date.now() > deadline) throw new Error(`aide up failed:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    stack = JSON.parse(readFileSync(join(aideHomeDir, "stack.json"), "utf8")) as Stack;
  }, 120_000);

  afterAll(async () => {
    if (supervisor && supervisor.exitCode === null) {
      const exited = new Promise((resolve) => supervisor.once("exit", resolve));
      supervisor.kill("SIGINT");
      await exited;
    }
    await ollama?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("model finds a loopback model server from inside its sandbox (aide up --model-discovery) and writes only its model-state", async () => {
    const stackFile = JSON.parse(readFileSync(join(aideHomeDir, "stack.json"), "utf8")) as { gateway_url: string; token_file: string };
    const token = readFileSync(stackFile.token_file, "utf8").trim();
    const listed = (await (await fetch(`${stackFile.gateway_url}/api/models`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      models: Array<{ id: string; source?: string; available: boolean }>;
    };
    expect(listed.models.find((model) => model.id === "ollama:qwen-coder")).toMatchObject({ source: "discovered", available: true });
    const pid = stack.services.model.pid;
    expect(inside(pid, `echo x > ${join(aideHomeDir, "model-state", "written-by-model")}`).ok).toBe(true);
    expect(inside(pid, `echo x > ${join(aideHomeDir, "models", "planted.gguf")}`).ok).toBe(false);
    // $AIDE_HOME is a private tmpfs in there: a write lands in it, never in the real home.
    inside(pid, `echo x > ${join(aideHomeDir, "models.json")}`);
    expect(existsSync(join(aideHomeDir, "models.json"))).toBe(false);
    expect(existsSync(join(aideHomeDir, "model-state", "written-by-model"))).toBe(true);
  });

  it("gateway serves the latest eval report from $AIDE_HOME/eval inside its sandbox, and cannot write there", async () => {
    const stackFile = JSON.parse(readFileSync(join(aideHomeDir, "stack.json"), "utf8")) as { gateway_url: string; token_file: string };
    const token = readFileSync(stackFile.token_file, "utf8").trim();
    const latest = (await (await fetch(`${stackFile.gateway_url}/api/eval/latest`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, unknown>;
    expect(latest).toMatchObject({ run: "run-sbx", report: { tasks: 3 }, files: ["report.json"] });
    const pid = stack.services.gateway.pid;
    expect(inside(pid, `cat ${join(aideHomeDir, "eval", "run-sbx", "report.json")}`).ok).toBe(true);
    expect(inside(pid, `echo x > ${join(aideHomeDir, "eval", "run-sbx", "planted")}`).ok).toBe(false);
    expect(existsSync(join(aideHomeDir, "eval", "run-sbx", "planted"))).toBe(false);
  });

  const services = ["orchestrator", "model", "tools", "checkpoints", "gateway", "mcp"] as const;

  it.each(services)("%s reads its own credentials file and no other service's", (name) => {
    const pid = stack.services[name].pid;
    expect(inside(pid, `cat ${join(aideHomeDir, "run", "credentials", `${name}.json`)}`).ok).toBe(true);
    for (const other of services.filter((s) => s !== name)) {
      const attempt = inside(pid, `cat ${join(aideHomeDir, "run", "credentials", `${other}.json`)}`);
      expect(attempt.ok, `${name} reading ${other}'s credentials: ${attempt.output}`).toBe(false);
    }
    expect(inside(pid, `cat ${join(aideHomeDir, "run", "nats-server.conf")}`).ok).toBe(false);
  });

  it.each(services)("%s cannot read $HOME/.ssh (a planted canary key)", (name) => {
    const attempt = inside(stack.services[name].pid, `cat ${join(home, ".ssh", "id_canary")}`);
    expect(attempt.ok).toBe(false);
    expect(attempt.output).not.toContain("CANARY");
  });

  it.each(services)("%s cannot write outside its allowed paths", (name) => {
    const pid = stack.services[name].pid;
    for (const target of ["/usr/aide-escape", join(repoRoot, "aide-escape"), "/etc/aide-escape"]) {
      expect(inside(pid, `echo x > ${target}`).ok, `${name} writing ${target}`).toBe(false);
      expect(existsSync(target)).toBe(false);
    }
  });

  it.each(["orchestrator", "model", "gateway"] as const)("%s cannot see the workspace", (name) => {
    const attempt = inside(stack.services[name].pid, `cat ${join(workspace, "secret-source.ts")}`);
    expect(attempt.ok).toBe(false);
  });

  it("tools writes the workspace but not .aide or .git/hooks", () => {
    const pid = stack.services.tools.pid;
    expect(inside(pid, `echo ok > ${join(workspace, "written-by-tools.txt")}`).ok).toBe(true);
    expect(inside(pid, `echo x > ${join(workspace, ".aide", "planted")}`).ok).toBe(false);
    expect(inside(pid, `echo x > ${join(workspace, ".git", "hooks", "pre-commit")}`).ok).toBe(false);
    expect(existsSync(join(workspace, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("checkpoints writes the workspace but never .git", () => {
    const pid = stack.services.checkpoints.pid;
    expect(inside(pid, `echo ok > ${join(workspace, "written-by-checkpoints.txt")}`).ok).toBe(true);
    expect(inside(pid, `echo x > ${join(workspace, ".git", "config")}`).ok).toBe(false);
  });

  it("each service's environment holds no other service's secret and no token", () => {
    const token = readFileSync(join(aideHomeDir, "run", "gateway.token"), "utf8").trim();
    for (const name of services) {
      const environ = readFileSync(`/proc/${stack.services[name].pid}/environ`, "utf8");
      expect(environ).not.toContain(token);
      expect(environ).not.toMatch(/password/i);
      expect(environ).toContain(`AIDE_NATS_CREDS=${join(aideHomeDir, "run", "credentials", `${name}.json`)}`);
    }
  });

  it("aide doctor reports each service sandboxed with its own namespaces", () => {
    const doctor = spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "doctor", "--json"], { env: { ...process.env, AIDE_HOME: aideHomeDir }, encoding: "utf8" });
    const report = JSON.parse(doctor.stdout) as { profiles: Array<{ service: string; sandboxed: boolean; namespaces: Record<string, string>; capabilities: string[] }> };
    expect(report.profiles).toHaveLength(6);
    for (const profile of report.profiles) {
      expect(profile.sandboxed).toBe(true);
      expect(profile.namespaces).toMatchObject({ pid: "own", ipc: "own", uts: "own", mnt: "own", net: "shared" });
    }
    expect(report.profiles.find((p) => p.service === "tools")?.capabilities.sort()).toEqual(["CAP_NET_ADMIN", "CAP_SETPCAP", "CAP_SYS_ADMIN"]);
    expect(report.profiles.find((p) => p.service === "mcp")?.capabilities.sort()).toEqual(["CAP_NET_ADMIN", "CAP_SETPCAP", "CAP_SYS_ADMIN"]);
  });

  it("mcp sees the workspace but cannot write .aide or .git/hooks", () => {
    const pid = stack.services.mcp.pid;
    expect(inside(pid, `cat ${join(workspace, "secret-source.ts")}`).ok).toBe(true);
    expect(inside(pid, `echo x > ${join(workspace, ".aide", "planted-by-mcp")}`).ok).toBe(false);
    expect(inside(pid, `echo x > ${join(workspace, ".git", "hooks", "post-checkout")}`).ok).toBe(false);
  });

  it("aide doctor shows the MCP server started in its own sandbox inside the MCP service's", async () => {
    let servers: Array<{ name: string; state: string; sandbox: string; pid?: number }> = [];
    for (let attempt = 0; attempt < 300 && !servers.some((s) => s.state === "ready"); attempt += 1) {
      const doctor = spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "doctor", "--json"], { env: { ...process.env, AIDE_HOME: aideHomeDir }, encoding: "utf8" });
      servers = (JSON.parse(doctor.stdout) as { mcp_servers: typeof servers }).mcp_servers;
      if (!servers.some((s) => s.state === "ready")) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const hostile = servers.find((s) => s.name === "hostile");
    expect(hostile, JSON.stringify(servers)).toMatchObject({ state: "ready" });
    expect(hostile!.sandbox).toMatch(/network none, workspace read-only/);
  });

  it("a changed mcp.json reaches the running MCP service without a restart: a new server starts, an invalid file changes nothing, a removed server stops", async () => {
    const doctorServers = () => {
      const doctor = spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "doctor", "--json"], { env: { ...process.env, AIDE_HOME: aideHomeDir }, encoding: "utf8" });
      return (JSON.parse(doctor.stdout) as { mcp_servers: Array<{ name: string; state: string; pid?: number }> }).mcp_servers;
    };
    const waitFor = async (what: string, ok: (servers: ReturnType<typeof doctorServers>) => boolean) => {
      let servers = doctorServers();
      for (let attempt = 0; attempt < 300 && !ok(servers); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        servers = doctorServers();
      }
      expect(ok(servers), `${what}: ${JSON.stringify(servers)}`).toBe(true);
      return servers;
    };
    const mcpPid = stack.services.mcp.pid;
    const server = { command: process.execPath, args: [join(repoRoot, "services", "mcp", "test", "fixtures", "hostile-server.mjs")] };
    const before = await waitFor("hostile ready", (servers) => servers.some((s) => s.name === "hostile" && s.state === "ready"));
    // An editor's save: a new file renamed over the old one (the service's sandbox still binds the old inode).
    const replace = (text: string) => {
      writeFileSync(join(aideHomeDir, "mcp.json.tmp"), text);
      renameSync(join(aideHomeDir, "mcp.json.tmp"), join(aideHomeDir, "mcp.json"));
    };
    replace(JSON.stringify({ servers: { hostile: server, second: server } }));
    const added = await waitFor("second ready", (servers) => servers.some((s) => s.name === "second" && s.state === "ready"));
    // The unchanged server kept running: the same process.
    expect(added.find((s) => s.name === "hostile")?.pid).toBe(before.find((s) => s.name === "hostile")?.pid);
    replace("{ not json");
    replace(JSON.stringify({ servers: { second: { command: 42 } } }));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(
      doctorServers()
        .filter((s) => s.state === "ready")
        .map((s) => s.name)
        .sort(),
    ).toEqual(["hostile", "second"]);
    replace(JSON.stringify({ servers: { hostile: server } }));
    await waitFor("second gone", (servers) => !servers.some((s) => s.name === "second"));
    // No restart of the service itself.
    expect(JSON.parse(readFileSync(join(aideHomeDir, "stack.json"), "utf8")).services.mcp.pid).toBe(mcpPid);
  }, 120_000);

  it("a workspace .mcp.json trusted while the stack runs is loaded for the next run, its server in a sandbox of its own", async () => {
    writeFileSync(
      join(workspace, ".mcp.json"),
      JSON.stringify({ mcpServers: { project: { command: process.execPath, args: [join(repoRoot, "services", "mcp", "test", "fixtures", "hostile-server.mjs")] } } }),
    );
    const { run: mcpCommand } = await import("../../cli/src/commands/mcp.js");
    expect(await mcpCommand(["trust", workspace], { ...process.env, AIDE_HOME: aideHomeDir })).toBe(0);
    const info = JSON.parse(readFileSync(join(aideHomeDir, "stack.json"), "utf8")) as { gateway_url: string; token_file: string };
    const token = readFileSync(info.token_file, "utf8").trim();
    const started = await fetch(`${info.gateway_url}/api/agent/start`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ task: "say hello", mode: "plan", workspace }),
    });
    expect(started.status).toBe(200);
    let project: { state: string; origin: string; sandbox: string } | undefined;
    for (let attempt = 0; attempt < 300 && project?.state !== "ready"; attempt += 1) {
      const doctor = spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "doctor", "--json"], { env: { ...process.env, AIDE_HOME: aideHomeDir }, encoding: "utf8" });
      project = (JSON.parse(doctor.stdout) as { mcp_servers: Array<typeof project & { name: string }> }).mcp_servers.find((s) => s?.name === "project");
      if (project?.state !== "ready") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(project).toMatchObject({ state: "ready", origin: "workspace" });
    expect(project!.sandbox).toMatch(/network none, workspace read-only/);
  });

  it("services other than tools and mcp hold no capabilities; those two only what nested bubblewrap needs", () => {
    const effective = (pid: number) => /CapEff:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];
    for (const name of ["orchestrator", "model", "checkpoints", "gateway"] as const) {
      expect(BigInt(`0x${effective(stack.services[name].pid)}`), name).toBe(0n);
    }
    // CAP_SYS_ADMIN (21), CAP_NET_ADMIN (12), CAP_SETPCAP (8)
    expect(BigInt(`0x${effective(stack.services.tools.pid)}`)).toBe((1n << 21n) | (1n << 12n) | (1n << 8n));
    expect(BigInt(`0x${effective(stack.services.mcp.pid)}`)).toBe((1n << 21n) | (1n << 12n) | (1n << 8n));
  });
});

describe("aide doctor and --unsandboxed-services", () => {
  it("doctor prints the effective profile of each running service; --unsandboxed-services shows in doctor and run.created", async () => {
    const root = mkdtempSync(join(tmpdir(), "aide-unsbx-"));
    const workspace = join(root, "ws");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(root, "t.json"), JSON.stringify({ replies: [{ text: "<attempt_completion><result>nothing to do</result></attempt_completion>" }] }));
    writeFileSync(join(root, "models.json"), JSON.stringify({ default: "s", models: [{ id: "s", provider: "scripted", transcript: join(root, "t.json") }] }));
    const aideHomeDir = join(root, "home");
    const stack = await startStackProcess({ aideHome: aideHomeDir, args: ["--workspace", workspace, "--models-config", join(root, "models.json"), "--unsandboxed-services"] });
    try {
      const doctor = spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "doctor", "--json"], { env: { ...process.env, AIDE_HOME: aideHomeDir }, encoding: "utf8" });
      const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; detail: string }>; profiles: Array<{ service: string; sandboxed: boolean }> };
      expect(report.profiles.map((p) => p.service).sort()).toEqual(["checkpoints", "gateway", "mcp", "model", "orchestrator", "tools"]);
      expect(report.profiles.every((p) => p.sandboxed === false)).toBe(true);
      expect(report.checks.find((c) => c.name === "stack")?.detail).toContain("UNSANDBOXED");
      const started = await postJson(stack, "/api/agent/start", { task: "say hello", mode: "act", workspace });
      expect(started.status).toBe(200);
      const events = await readEvents(stack, started.body.session, 0, (event) => event.type === "run.created");
      expect(events[0].payload.unsandboxed_services).toBe(true);
    } finally {
      await stack.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
