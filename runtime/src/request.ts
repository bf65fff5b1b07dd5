import type { NatsConnection } from "nats";
import type { z } from "zod";
import { AideError, aideError, type ErrorBody } from "@aide/contracts";
import { requestLarge } from "./chunked-transfer.js";
import { decodeJson, encodeJson } from "./codec.js";
import { formatZodError } from "./service.js";

export interface BusRequestOptions {
  timeoutMs?: number;
  /** The service name for UNAVAILABLE errors. */
  service?: string;
}

/**
 * Sends a request and returns the reply's result, or throws an AideError carrying the reply's
 * code (or UNAVAILABLE when nobody answers, TIMEOUT when nobody answers in time).
 */
export async function busRequest<S extends z.ZodTypeAny>(
  connection: NatsConnection,
  subject: string,
  payload: unknown,
  replySchema: S,
  options: BusRequestOptions = {},
): Promise<Extract<z.infer<S>, { ok: true }> extends { result: infer R } ? R : never> {
  const service = options.service ?? subject.split(".")[1] ?? subject;
  let data: Uint8Array;
  try {
    // Bodies over the server's max payload travel in chunks (chunked-transfer.ts).
    data = await requestLarge(connection, subject, encodeJson(payload), { timeoutMs: options.timeoutMs ?? 30_000 });
  } catch (error) {
    if (error instanceof AideError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "503") throw aideError("UNAVAILABLE", { service, detail: "no responder" }, { reason: "no_responder" });
    if (code === "TIMEOUT") throw aideError("UNAVAILABLE", { service, detail: `no reply within ${options.timeoutMs ?? 30_000} ms` }, { reason: "timeout" });
    throw aideError("UNAVAILABLE", { service, detail: (error as Error).message });
  }
  const parsed = replySchema.safeParse(decodeJson(data));
  if (!parsed.success) throw aideError("INTERNAL", { detail: `bad reply from ${subject}: ${formatZodError(parsed.error)}` });
  const reply = parsed.data as { ok: true; result: unknown } | { ok: false; error: ErrorBody };
  if (!reply.ok) throw new AideError(reply.error.code, reply.error.message, reply.error.details);
  return reply.result as never;
}
