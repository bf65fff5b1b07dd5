/**
 * The one llama-server every agent of the peers bench talks to: the GGUF on a free loopback
 * port, `--jinja` (the model's own chat template, tool calls included), one slot, the threads and
 * window the bench names, its log in a file. Ready once /health answers; closed by SIGTERM and
 * waited for (SIGKILL after 10 s), so the bench never leaves it behind.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { freePort } from "@aide/runtime";

export interface PeersLlamaServer {
  pid: number;
  /** Base URL without a path: `http://127.0.0.1:PORT`. */
  url: string;
  /** The model name the server answers to (`--alias`). */
  alias: string;
  close(): Promise<void>;
}

export interface PeersLlamaServerOptions {
  binary: string;
  file: string;
  alias: string;
  threads: number;
  contextSize: number;
  logFile: string;
  signal?: AbortSignal;
  startTimeoutMs?: number;
}

export async function startPeersLlamaServer(options: PeersLlamaServerOptions): Promise<PeersLlamaServer> {
  const port = await freePort();
  const log = openSync(options.logFile, "a");
  const args = [
    "-m",
    options.file,
    "--alias",
    options.alias,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--no-webui",
    "--jinja",
    "-t",
    String(options.threads),
    "-tb",
    String(options.threads),
    "-c",
    String(options.contextSize),
    "-np",
    "1",
  ];
  const child = spawn(options.binary, args, { stdio: ["ignore", log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 300_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`llama-server exited (${child.exitCode ?? child.signalCode}) before it was ready; see ${options.logFile}`);
    if (options.signal?.aborted || Date.now() > deadline) {
      await close();
      throw new Error(options.signal?.aborted ? "stopped while llama-server was loading" : `llama-server was not ready in time; see ${options.logFile}`);
    }
    if (
      await fetch(`${url}/health`).then(
        (reply) => reply.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { pid: child.pid as number, url, alias: options.alias, close };
}
