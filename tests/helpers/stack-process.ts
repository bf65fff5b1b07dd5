import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { repoRoot } from "./service-process.js";

export interface StackProcess {
  child: ChildProcess;
  output(): string;
  gatewayUrl: string;
  token: string;
  natsUrl: string;
  aideHome: string;
  stack: any;
  stop(): Promise<number | null>;
}

/** `aide up` as a real process (services sandboxed unless asked otherwise); resolves when it is up. */
export async function startStackProcess(options: { aideHome: string; args: string[]; env?: Record<string, string>; timeoutMs?: number }): Promise<StackProcess> {
  const child = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "up", "--nats-port", "0", "--gateway-port", "0", ...options.args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_MODEL_DISCOVERY: "off", ...options.env, AIDE_HOME: options.aideHome },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  while (!output.includes("aide is up")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`aide up failed:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stack = JSON.parse(readFileSync(join(options.aideHome, "stack.json"), "utf8"));
  return {
    child,
    output: () => output,
    gatewayUrl: stack.gateway_url,
    natsUrl: stack.nats_url,
    token: readFileSync(stack.token_file, "utf8").trim(),
    aideHome: options.aideHome,
    stack,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export async function postJson(stack: StackProcess, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(stack.gatewayUrl + path, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

export async function getJson(stack: StackProcess, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(stack.gatewayUrl + path, { headers: { authorization: `Bearer ${stack.token}` } });
  return { status: response.status, body: await response.json() };
}

/**
 * Reads event frames from the gateway's WebSocket until `until(event)` is true or `limit` events
 * arrived, then closes. Returns the events in arrival order.
 */
export async function readEvents(stack: StackProcess, session: string, since: number, stopWhen: (event: any, all: any[]) => boolean, timeoutMs = 60_000): Promise<any[]> {
  const url = `${stack.gatewayUrl.replace("http", "ws")}/api/events?session=${session}&since=${since}`;
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${stack.token}` } });
  const events: any[] = [];
  let done = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`timed out; got ${events.map((e) => `${e.seq}:${e.type}`).join(" ")}`));
    }, timeoutMs);
    socket.on("message", (data) => {
      if (done) return;
      const frame = JSON.parse(String(data));
      if (frame.type === "error") {
        done = true;
        clearTimeout(timer);
        socket.close();
        reject(new Error(JSON.stringify(frame.error)));
        return;
      }
      if (frame.type !== "event") return;
      events.push(frame.event);
      if (stopWhen(frame.event, events)) {
        done = true;
        clearTimeout(timer);
        socket.close();
        resolve(events);
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
