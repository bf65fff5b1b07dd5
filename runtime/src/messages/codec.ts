import { AideError, aideError, screenSafeJson, type ErrorBody, type Reply } from "@aide/contracts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The one serializer of everything on the bus (events, requests, replies, KV values). Every
 * character a terminal would act on or a person cannot see travels as a JSON `\uXXXX` escape
 * (`screenSafeJson`): the same value once parsed, but `nats sub 'agent.>'` and any byte-level
 * viewer never get a raw ESC, C1, bidi or Tag character, whatever a field holds.
 */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(screenSafeJson(value));
}

/** Decodes a JSON message body; invalid UTF-8 or JSON becomes a BAD_JSON AideError. */
export function decodeJson(data: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(data);
  } catch {
    throw aideError("BAD_JSON", { detail: "the body is not valid UTF-8" });
  }
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw aideError("BAD_JSON", { detail: (error as Error).message });
  }
}

export function okReply<T>(result: T): Reply<T> {
  return { ok: true, result };
}

export function errorReply(error: unknown): { ok: false; error: ErrorBody } {
  if (error instanceof AideError) return { ok: false, error: error.toBody() };
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, error: { code: "INTERNAL", message: `Internal error: ${message}` } };
}
