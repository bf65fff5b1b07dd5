import { aideError, AideError } from "@aide/contracts";
import { sleep } from "./provider.js";

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  /** Per attempt, from the request to the end of the body. */
  timeoutMs: number;
}

export interface PostOptions {
  url: string;
  body: unknown;
  headers: Record<string, string>;
  policy: RetryPolicy;
  /** The caller's abort (agent.model.abort); distinct from the timeout. */
  signal: AbortSignal;
  /** Called before each retry (for the log: status and delay, never headers). */
  onRetry?: (info: { attempt: number; status?: number; delayMs: number; reason: string }) => void;
}

export type AttemptSignal = { signal: AbortSignal; timedOut: () => boolean };

function retryAfterMs(header: string | null, fallback: number): number {
  if (!header) return fallback;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : fallback;
}

function attemptSignal(signal: AbortSignal, timeoutMs: number): AttemptSignal & { clear(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, timeoutMs);
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clear: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * POSTs JSON and hands the streaming response to `consume`, retrying 429 and 5xx (and refused
 * connections) with exponential back-off (Retry-After wins) while nothing has been consumed yet.
 * Redirects are refused (a loopback server must not bounce the request off the machine). A 4xx
 * is a clear MODEL_FAILED with the server's message; the timeout is TIMEOUT.
 */
export async function postStreaming<T>(options: PostOptions, consume: (response: Response, attempt: AttemptSignal) => Promise<T>): Promise<T> {
  const { policy } = options;
  for (let attempt = 0; ; attempt++) {
    const scoped = attemptSignal(options.signal, policy.timeoutMs);
    let retry: { delayMs: number; status?: number; reason: string } | undefined;
    try {
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream, application/x-ndjson, application/json", ...options.headers },
          body: JSON.stringify(options.body),
          signal: scoped.signal,
          redirect: "error",
        });
      } catch (error) {
        if (options.signal.aborted) throw error;
        if (scoped.timedOut()) throw aideError("TIMEOUT", { ms: policy.timeoutMs });
        retry = { delayMs: policy.baseMs * 2 ** attempt, reason: (error as Error).message };
        if (attempt >= policy.maxRetries)
          throw aideError("MODEL_FAILED", { detail: `cannot reach ${options.url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}` });
      }
      if (retry === undefined) {
        const res = response!;
        if (res.status === 429 || res.status >= 500) {
          const text = await res.text().catch(() => "");
          if (attempt >= policy.maxRetries) throw aideError("MODEL_FAILED", { detail: `HTTP ${res.status} after ${attempt + 1} attempts: ${text.slice(0, 300)}` });
          retry = { delayMs: Math.min(60_000, retryAfterMs(res.headers.get("retry-after"), policy.baseMs * 2 ** attempt)), status: res.status, reason: text.slice(0, 200) };
        } else if (!res.ok) {
          const text = await res.text().catch(() => "");
          throw aideError("MODEL_FAILED", { detail: `HTTP ${res.status} from ${new URL(options.url).pathname}: ${text.slice(0, 500)}` });
        } else {
          try {
            return await consume(res, scoped);
          } catch (error) {
            if (scoped.timedOut() && !options.signal.aborted) throw aideError("TIMEOUT", { ms: policy.timeoutMs });
            throw error;
          }
        }
      }
    } finally {
      scoped.clear();
    }
    options.onRetry?.({ attempt: attempt + 1, ...retry });
    if (!(await sleep(retry.delayMs, options.signal))) throw new AideError("ABORTED");
  }
}

/** Yields the lines of a streaming body (SSE or NDJSON), decoding UTF-8 across chunks. */
export async function* readLines(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      yield line;
    }
  }
  buffer += decoder.decode();
  if (buffer.length > 0) yield buffer;
}

/** The `data:` payloads of a server-sent event stream, until `[DONE]`. */
export async function* readSseData(response: Response): AsyncGenerator<string> {
  let data: string[] = [];
  for await (const line of readLines(response)) {
    if (line === "") {
      if (data.length > 0) {
        const payload = data.join("\n");
        data = [];
        if (payload.trim() === "[DONE]") return;
        yield payload;
      }
      continue;
    }
    if (line.startsWith(":")) continue;
    if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (data.length > 0 && data.join("\n").trim() !== "[DONE]") yield data.join("\n");
}
