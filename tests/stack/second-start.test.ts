import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/service-process.js";
import { getJson, postJson, readEvents, startStackProcess, type StackProcess } from "../helpers/stack-process.js";

/** Issue 13 item 6: a second start on a home with a running stack leaves that stack intact. */
function runAide(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_MODEL_DISCOVERY: "off", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("a second start on a home with a running stack", () => {
  let home: string;
  let workspace: string;
  let stack: StackProcess;
  const files = ["stack.json", "run/gateway.token", "run/credentials/tools.json", "run/credentials/supervisor.json", "run/nats-server.conf"];
  const snapshot = () => Object.fromEntries(files.map((file) => [file, readFileSync(join(home, file), "utf8")]));

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-home-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-ws-"));
    // A scripted model whose first reply asks to run a command: that run waits for its approval.
    const transcript = join(home, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ replies: [{ text: "Running the tests.\n<run_command>\n<command>node --test</command>\n</run_command>" }] }));
    const models = join(home, "models.json");
    writeFileSync(models, JSON.stringify({ default: "scripted", models: [{ id: "scripted", provider: "scripted", transcript }] }));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace, "--models-config", models] });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it("aide up refuses with STACK_RUNNING naming the gateway and pid, and changes none of the stack's files", async () => {
    const before = snapshot();
    const second = await runAide(["up", "--nats-port", "0", "--gateway-port", "0", "--workspace", workspace], { AIDE_HOME: home });
    expect(second.code).toBe(1);
    expect(second.output).toContain("STACK_RUNNING");
    expect(second.output).toContain(stack.gatewayUrl);
    expect(second.output).toContain(`pid ${stack.stack.pid}`);
    expect(snapshot()).toEqual(before);
    // The first stack still answers its clients with its token.
    const health = await getJson(stack, "/api/health");
    expect(health.status).toBe(200);
    expect(health.body.ok).toBe(true);
  }, 60_000);

  it("aide run uses the running stack, and a second run on a busy workspace is refused with WORKSPACE_BUSY naming the first session", async () => {
    const started = await postJson(stack, "/api/agent/start", { task: "Run the tests", workspace });
    expect(started.status).toBe(200);
    const session = started.body.session as string;
    await readEvents(stack, session, 0, (event) => event.type === "approval.requested");
    const before = snapshot();
    const second = await runAide(["run", "Run the tests again", "--workspace", workspace], { AIDE_HOME: home }, 60_000);
    expect(second.code).toBe(1);
    expect(second.output).toContain("WORKSPACE_BUSY");
    expect(second.output).toContain(`session ${session}`);
    expect(second.output).toContain(`aide events --session ${session}`);
    // No second stack was started for it.
    expect(snapshot()).toEqual(before);
    expect((await postJson(stack, "/api/agent/abort", { session, reason: "test over" })).status).toBe(200);
  }, 90_000);
});

describe("two aide up started at once on one fresh home", () => {
  let home: string;
  let workspace: string;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "aide-home-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-ws-"));
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it("one starts, the other is refused with STACK_RUNNING (the home lock)", async () => {
    const args = ["--workspace", workspace];
    const [first, second] = await Promise.allSettled([startStackProcess({ aideHome: home, args }), startStackProcess({ aideHome: home, args })]);
    const up = [first, second].filter((result): result is PromiseFulfilledResult<StackProcess> => result.status === "fulfilled");
    const refused = [first, second].filter((result): result is PromiseRejectedResult => result.status === "rejected");
    try {
      expect(up).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(String(refused[0]!.reason)).toContain("STACK_RUNNING");
      expect(JSON.parse(readFileSync(join(home, "stack.json"), "utf8")).pid).toBe(up[0]!.value.child.pid);
      expect((await getJson(up[0]!.value, "/api/health")).status).toBe(200);
    } finally {
      for (const result of up) await result.value.stop();
    }
  }, 150_000);
});
