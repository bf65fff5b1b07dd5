/**
 * A loopback HTTP proxy in front of one llama-server that counts the chat calls of each agent:
 * an agent is pointed at `<proxy>/<agent>/v1`, the prefix is stripped and the request forwarded
 * unchanged. For every `…/chat/completions` POST the agent's counter gains a call and, when the
 * reply says them (`usage`, streamed or not), its prompt and completion tokens. A client that
 * hangs up (an attempt killed at its budget) has its upstream request closed too, so the server
 * stops generating for nobody.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface CallCounts {
  calls: number;
  /** Calls answered with a status other than 2xx (or not answered). */
  failed: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Calls whose reply carried a usage block (the token sums cover only these). */
  with_usage: number;
}

export interface CountingProxy {
  url: string;
  /** The counts of one agent so far (zeros for an agent not seen). */
  counts(agent: string): CallCounts;
  close(): Promise<void>;
}

const zero = (): CallCounts => ({ calls: 0, failed: 0, prompt_tokens: 0, completion_tokens: 0, with_usage: 0 });

/** The difference of two snapshots of one agent's counts: what happened between them. */
export function countsBetween(before: CallCounts, after: CallCounts): CallCounts {
  return {
    calls: after.calls - before.calls,
    failed: after.failed - before.failed,
    prompt_tokens: after.prompt_tokens - before.prompt_tokens,
    completion_tokens: after.completion_tokens - before.completion_tokens,
    with_usage: after.with_usage - before.with_usage,
  };
}

/** The last usage block in a reply body (a streamed reply sends it in its final chunk). */
export function usageOf(body: string): { prompt_tokens: number; completion_tokens: number } | undefined {
  const prompts = [...body.matchAll(/"prompt_tokens"\s*:\s*(\d+)/g)];
  const completions = [...body.matchAll(/"completion_tokens"\s*:\s*(\d+)/g)];
  if (prompts.length === 0 || completions.length === 0) return undefined;
  return { prompt_tokens: Number(prompts.at(-1)![1]), completion_tokens: Number(completions.at(-1)![1]) };
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const counters = new Map<string, CallCounts>();
  const counter = (agent: string) => {
    let found = counters.get(agent);
    if (found === undefined) counters.set(agent, (found = zero()));
    return found;
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/([A-Za-z0-9_.-]+)(\/.*)?$/.exec(req.url ?? "/");
    if (match === null) {
      res.writeHead(404).end();
      return;
    }
    const agent = match[1];
    const path = match[2] ?? "/";
    const isChat = req.method === "POST" && /\/chat\/completions$/.test(path.split("?")[0]);
    const count = isChat ? counter(agent) : undefined;
    if (count !== undefined) count.calls += 1;
    const headers = { ...req.headers, host: target.host };
    const upstreamRequest = request({ hostname: target.hostname, port: target.port, path, method: req.method, headers }, (upstreamResponse) => {
      res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
      let tail = "";
      upstreamResponse.on("data", (chunk: Buffer) => {
        if (count !== undefined) tail = (tail + chunk.toString("utf8")).slice(-16_000);
        res.write(chunk);
      });
      upstreamResponse.on("end", () => {
        res.end();
        if (count === undefined) return;
        const ok = (upstreamResponse.statusCode ?? 500) < 300;
        if (!ok) count.failed += 1;
        const usage = ok ? usageOf(tail) : undefined;
        if (usage !== undefined) {
          count.with_usage += 1;
          count.prompt_tokens += usage.prompt_tokens;
          count.completion_tokens += usage.completion_tokens;
        }
      });
      upstreamResponse.on("error", () => res.destroy());
    });
    upstreamRequest.on("error", () => {
      if (count !== undefined) count.failed += 1;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    // The client gave up (killed at its budget): the server stops working for it.
    res.on("close", () => {
      if (!res.writableFinished) upstreamRequest.destroy();
    });
    req.pipe(upstreamRequest);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: (agent) => ({ ...(counters.get(agent) ?? zero()) }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
