/**
 * A bare MCP client over stdio for bench:mcp: newline-delimited JSON-RPC written and read by hand,
 * no SDK, no schema checks. Not something aide uses (aide checks every message): it is the
 * fastest direct configuration, so the bench can say how much of the SDK anchor is the SDK's own
 * client work and how much the server's.
 */
import { spawn } from "node:child_process";

export interface RawJsonRpcClient {
  /** One request; resolves with its `result`, rejects with its `error`. */
  call(method: string, params: unknown): Promise<unknown>;
  close(): void;
}

export async function rawJsonRpcClient(command: string, args: string[]): Promise<RawJsonRpcClient> {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { message?: string } };
      const waiter = message.id === undefined ? undefined : waiting.get(message.id);
      if (waiter === undefined) continue;
      waiting.delete(message.id as number);
      if (message.error) waiter.reject(new Error(message.error.message ?? "error"));
      else waiter.resolve(message.result);
    }
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const call = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      send({ jsonrpc: "2.0", id, method, params });
    });
  await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-raw", version: "1" } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { call, close: () => child.kill() };
}
