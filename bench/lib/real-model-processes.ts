import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { freePort, startNatsServer, waitForService } from "@aide/runtime";
import { ModelChatReplySchema, type ModelChatResult } from "@aide/contracts";
import { repoRoot } from "./results.js";

/** A real model service (services/model/dist) on a bus of its own, serving one GGUF as `id`. */
export interface ModelServiceProcess {
  pid: number;
  chat(body: Record<string, unknown>): Promise<ModelChatResult>;
  close(): Promise<void>;
}

/**
 * Starts the built model service with one llama spec (`spec` adds to id, provider, file, one
 * thread) in `home`, on a fresh NATS server, with `env` added (e.g. AIDE_MODEL_PREFIX_CACHE=0).
 */
export async function startModelServiceProcess(id: string, file: string, home: string, spec: Record<string, unknown>, env: Record<string, string> = {}): Promise<ModelServiceProcess> {
  const config = join(home, "models.json");
  mkdirSync(home, { recursive: true });
  writeFileSync(config, JSON.stringify({ default: id, models: [{ id, provider: "llama", file, threads: 1, ...spec }] }));
  const server = await startNatsServer({ runDir: join(home, "bus"), extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
  const client: NatsConnection = await connect({ servers: server.url, user: "tester", pass: server.credentials.tester.password, inboxPrefix: server.credentials.tester.inbox_prefix });
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, "services", "model", "dist", "main.js")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      AIDE_NATS_URL: server.url,
      AIDE_NATS_CREDS: server.credentialFiles.model,
      AIDE_LOG_LEVEL: "warn",
      AIDE_MODELS_CONFIG: config,
      AIDE_HOME: home,
      AIDE_MODEL_DISCOVERY: "off",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitForService(client, "model", { timeoutMs: 60_000, stillStarting: () => (child.exitCode !== null ? `exited with ${child.exitCode}` : undefined) });
  return {
    pid: child.pid as number,
    async chat(body) {
      const message = await client.request("agent.model.chat", new TextEncoder().encode(JSON.stringify({ model: id, ...body })), { timeout: 600_000 });
      const reply = ModelChatReplySchema.parse(JSON.parse(new TextDecoder().decode(message.data)));
      if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
      return reply.result;
    },
    async close() {
      child.kill("SIGTERM");
      await client.close();
      await server.stop();
    },
  };
}

/** A real llama-server on a free loopback port, once /health answers. */
export interface LlamaServerProcess {
  pid: number;
  url: string;
  post(path: string, body: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startLlamaServerProcess(binary: string, file: string, args: string[]): Promise<LlamaServerProcess> {
  const port = await freePort();
  const child = spawn(binary, ["-m", file, "--host", "127.0.0.1", "--port", String(port), "--no-webui", ...args], { stdio: ["ignore", "ignore", "ignore"] });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server (${file}) exited ${child.exitCode}`);
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    pid: child.pid as number,
    url,
    post: async (path, body) =>
      (await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>,
    close: async () => void child.kill("SIGTERM"),
  };
}
