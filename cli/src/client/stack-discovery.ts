import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { StackFileSchema } from "@aide/contracts";
import type { GatewayConnection } from "./gateway-client.js";
import { aideHome } from "../supervisor/aide-home.js";
import { processAlive } from "../supervisor/stack-file.js";

export function stackFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return aideHome(env).stackFile;
}

/** The running stack from `$AIDE_HOME/stack.json`, or undefined (no file, bad file, supervisor gone). */
export function findStack(env: NodeJS.ProcessEnv = process.env): GatewayConnection | undefined {
  const path = stackFilePath(env);
  if (!existsSync(path)) return undefined;
  try {
    const stack = StackFileSchema.parse(JSON.parse(readFileSync(path, "utf8")));
    if (stack.pid !== undefined && !processAlive(stack.pid)) return undefined;
    return { baseUrl: stack.gateway_url.replace(/\/$/, ""), token: readFileSync(stack.token_file, "utf8").trim() };
  } catch {
    return undefined;
  }
}

export interface StartedStack {
  connection: GatewayConnection;
  /** SIGTERM and wait for the supervisor to drain the stack. */
  stop(): Promise<void>;
  /** SIGTERM without waiting (on the way out of a process). */
  signal(): void;
}

/**
 * Starts `aide up` in its own process group (so the terminal's Ctrl-C reaches `aide run`, which
 * then aborts the run and stops the stack in order) and waits for its stack.json.
 */
export async function startStack(options: { workspace: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<StartedStack> {
  const env = options.env ?? process.env;
  const main = fileURLToPath(new URL("../main.js", import.meta.url));
  // Ephemeral ports: a stack that lives for one run should not collide with anything; its
  // stack.json says where it is.
  const args = [main, "up", "--nats-port", "0", "--gateway-port", "0", "--workspace", options.workspace];
  const child = spawn(process.execPath, args, { env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  for (;;) {
    // Refused because another `aide up` holds this home (still starting): use that stack once it is
    // ready rather than failing or starting a second one.
    const otherStack = child.exitCode !== null && stderr.includes("STACK_RUNNING");
    if (child.exitCode !== null && !otherStack) throw new Error(`aide up exited with ${child.exitCode}: ${stderr.trim()}`);
    const connection = findStack(env);
    if (connection) {
      try {
        const health = await fetch(`${connection.baseUrl}/api/health`, { headers: { authorization: `Bearer ${connection.token}` } });
        // Every service answers $SRV.PING: the stack is ready for a run.
        if (health.ok && ((await health.json()) as { ok?: boolean }).ok === true) break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`aide up did not become ready in time: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const connection = findStack(env) as GatewayConnection;
  return {
    connection,
    signal() {
      if (child.exitCode === null) child.kill("SIGTERM");
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
