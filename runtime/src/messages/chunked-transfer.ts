import { createHash } from "node:crypto";
import { headers as createHeaders, type Msg, type MsgHdrs, type NatsConnection } from "nats";
import { aideError, type AideError } from "@aide/contracts";

/**
 * Request/reply bodies larger than the server's max payload, sent as a chain of chunks.
 *
 * Every step is an ordinary request to the inbox the other side just replied from, so a chunk
 * chain stays with the one instance of a queue group that took the first message, and each side
 * only ever publishes one response to a reply subject it received (the bus users'
 * `allow_responses`). The first message announces the whole body (count, size, sha256); the
 * receiver asks for chunk i with `Aide-Chunk-Want: i`, checks every index, and the assembled
 * body's size and digest, so a body is never silently cut or mixed. The server's max payload
 * stays a limit on one message, not on a request.
 */

const kindHeader = "Aide-Chunked";
const countHeader = "Aide-Chunk-Count";
const sizeHeader = "Aide-Chunk-Size";
const digestHeader = "Aide-Chunk-Sha256";
const indexHeader = "Aide-Chunk-Index";
const wantHeader = "Aide-Chunk-Want";

/** Room left in each message for the headers. */
const headerRoomBytes = 4 * 1024;

/** The largest whole body sent or accepted in chunks (setting `AIDE_BUS_MAX_MESSAGE_BYTES`). */
export const defaultMaxMessageBytes = 64 * 1024 * 1024;

/** How long one step of a chain may wait for the other side (the handler's own time is not a step). */
export const chunkStepTimeoutMs = 15_000;

export function maxMessageBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AIDE_BUS_MAX_MESSAGE_BYTES;
  if (raw === undefined || raw === "") return defaultMaxMessageBytes;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1024) throw aideError("CONFIG_INVALID", { detail: `AIDE_BUS_MAX_MESSAGE_BYTES must be an integer of at least 1024, not ${JSON.stringify(raw)}` });
  return value;
}

/** The payload of one chunk on this connection: the server's max payload less room for headers. */
export function chunkBytes(connection: NatsConnection): number {
  const max = connection.info?.max_payload ?? 1024 * 1024;
  return Math.max(1024, max - headerRoomBytes);
}

interface Announcement {
  count: number;
  size: number;
  digest: string;
}

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function announce(kind: "request" | "reply", data: Uint8Array, chunk: number): MsgHdrs {
  const headers = createHeaders();
  headers.set(kindHeader, kind);
  headers.set(countHeader, String(Math.ceil(data.length / chunk)));
  headers.set(sizeHeader, String(data.length));
  headers.set(digestHeader, sha256(data));
  headers.set(indexHeader, "0");
  return headers;
}

function single(name: string, value: number): MsgHdrs {
  const headers = createHeaders();
  headers.set(name, String(value));
  return headers;
}

function numberHeader(message: Msg, name: string): number | undefined {
  const raw = message.headers?.get(name);
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The announcement a first message carries, or undefined for an ordinary message. */
function announcementOf(message: Msg, kind: "request" | "reply"): Announcement | undefined {
  if (message.headers?.get(kindHeader) !== kind) return undefined;
  const count = numberHeader(message, countHeader);
  const size = numberHeader(message, sizeHeader);
  const digest = message.headers?.get(digestHeader) ?? "";
  if (count === undefined || size === undefined || count < 1 || !/^[0-9a-f]{64}$/.test(digest)) {
    throw aideError("TRANSFER_FAILED", { size: size ?? "?", detail: "the chunk announcement is malformed" });
  }
  return { count, size, digest };
}

function checkIndex(message: Msg, expected: number, size: number): void {
  const index = numberHeader(message, indexHeader);
  if (index !== expected) throw aideError("TRANSFER_FAILED", { size, detail: `chunk ${expected} was expected, ${index ?? "no index"} arrived` });
}

function assemble(parts: Uint8Array[], announced: Announcement): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  if (total !== announced.size) throw aideError("TRANSFER_FAILED", { size: announced.size, detail: `${total} bytes arrived` });
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  if (sha256(whole) !== announced.digest) throw aideError("TRANSFER_FAILED", { size: announced.size, detail: "the sha256 of the reassembled body differs" });
  return whole;
}

function sliceOf(data: Uint8Array, index: number, chunk: number): Uint8Array {
  return data.subarray(index * chunk, Math.min(data.length, (index + 1) * chunk));
}

/** Pulls chunks 1…count-1 of an announced body, asking the side that sent `first`. */
async function pullChunks(connection: NatsConnection, first: Msg, announced: Announcement, timeoutMs: number): Promise<{ data: Uint8Array; last: Msg }> {
  const parts = [first.data];
  let current = first;
  for (let index = 1; index < announced.count; index += 1) {
    if (!current.reply) throw aideError("TRANSFER_FAILED", { size: announced.size, detail: `chunk ${index - 1} has no way to ask for the next` });
    current = await connection.request(current.reply, new Uint8Array(), { timeout: timeoutMs, headers: single(wantHeader, index) });
    checkIndex(current, index, announced.size);
    parts.push(current.data);
  }
  return { data: assemble(parts, announced), last: current };
}

export interface LargeRequestOptions {
  timeoutMs: number;
  /** The largest reply accepted; default `AIDE_BUS_MAX_MESSAGE_BYTES` or `defaultMaxMessageBytes`. */
  maxReplyBytes?: number;
}

/**
 * `connection.request` for a body of any size: a body over one message is sent in chunks, and a
 * chunked reply is reassembled. `timeoutMs` bounds the whole exchange. Fails as
 * `connection.request` does (errors with code "503" for no responder, "TIMEOUT"), or with
 * TRANSFER_FAILED / PAYLOAD_TOO_LARGE AideErrors.
 */
export async function requestLarge(connection: NatsConnection, subject: string, data: Uint8Array, options: LargeRequestOptions): Promise<Uint8Array> {
  const deadline = Date.now() + options.timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const step = () => Math.min(chunkStepTimeoutMs, remaining());
  const chunk = chunkBytes(connection);
  let reply: Msg;
  if (data.length <= chunk) {
    reply = await connection.request(subject, data, { timeout: options.timeoutMs });
  } else {
    const count = Math.ceil(data.length / chunk);
    // The first message waits for the whole handler if it is the only one; otherwise one step.
    reply = await connection.request(subject, sliceOf(data, 0, chunk), { timeout: step(), headers: announce("request", data, chunk) });
    for (let index = 1; index < count; index += 1) {
      const want = numberHeader(reply, wantHeader);
      // An answer that asks for nothing is the responder's final word (a refusal such as PAYLOAD_TOO_LARGE).
      if (want === undefined) break;
      if (want !== index || !reply.reply) throw aideError("TRANSFER_FAILED", { size: data.length, detail: `the responder asked for chunk ${want} when ${index} was next` });
      reply = await connection.request(reply.reply, sliceOf(data, index, chunk), { timeout: index === count - 1 ? remaining() : step(), headers: single(indexHeader, index) });
    }
  }
  return completeReply(connection, reply, { timeoutMs: step(), maxReplyBytes: options.maxReplyBytes });
}

/** Whether a body goes as one message (else requestLarge sends it in chunks). */
export function fitsOneMessage(connection: NatsConnection, data: Uint8Array): boolean {
  return data.length <= chunkBytes(connection);
}

/** The whole body of a reply: itself, or, when it announces chunks, the chunks pulled one by one. */
export async function completeReply(connection: NatsConnection, reply: Msg, options: { timeoutMs: number; maxReplyBytes?: number }): Promise<Uint8Array> {
  const announced = announcementOf(reply, "reply");
  if (announced === undefined) return reply.data;
  const limit = options.maxReplyBytes ?? maxMessageBytesFromEnv();
  if (announced.size > limit) throw aideError("PAYLOAD_TOO_LARGE", { size: announced.size, limit });
  return (await pullChunks(connection, reply, announced, Math.min(chunkStepTimeoutMs, options.timeoutMs))).data;
}

export type ReceivedRequest =
  | { ok: true; data: Uint8Array; replyTo: Msg }
  /** `replyTo` is undefined when the chain broke mid-way: the requester is gone and nothing can be answered. */
  | { ok: false; error: AideError; replyTo: Msg | undefined };

/**
 * The whole body of a received request: the message's own data, or the chunks pulled from the
 * requester. `replyTo` is the message to answer (the last chunk's, for a chunked request).
 */
export async function receiveLarge(connection: NatsConnection, message: Msg, maxBytes: number): Promise<ReceivedRequest> {
  let announced: Announcement | undefined;
  try {
    announced = announcementOf(message, "request");
  } catch (error) {
    return { ok: false, error: error as AideError, replyTo: message };
  }
  if (announced === undefined) {
    if (message.data.length > maxBytes) return { ok: false, error: aideError("PAYLOAD_TOO_LARGE", { size: message.data.length, limit: maxBytes }), replyTo: message };
    return { ok: true, data: message.data, replyTo: message };
  }
  if (announced.size > maxBytes) return { ok: false, error: aideError("PAYLOAD_TOO_LARGE", { size: announced.size, limit: maxBytes }), replyTo: message };
  try {
    const { data, last } = await pullChunks(connection, message, announced, chunkStepTimeoutMs);
    return { ok: true, data, replyTo: last };
  } catch (error) {
    const failure =
      (error as { code?: unknown }).code === "TRANSFER_FAILED"
        ? (error as AideError)
        : aideError("TRANSFER_FAILED", { size: announced.size, detail: `the requester stopped sending: ${(error as Error).message}` });
    return { ok: false, error: failure, replyTo: undefined };
  }
}

/**
 * Answers `replyTo` with a body of any size (chunks, when it is over one message). Resolves when
 * the last chunk is sent; rejects when the requester stops asking (it gave up or went away).
 */
export async function respondLarge(connection: NatsConnection, replyTo: Msg, data: Uint8Array): Promise<void> {
  if (!replyTo.reply) return;
  const chunk = chunkBytes(connection);
  if (data.length <= chunk) {
    replyTo.respond(data);
    return;
  }
  const count = Math.ceil(data.length / chunk);
  let current = await connection.request(replyTo.reply, sliceOf(data, 0, chunk), { timeout: chunkStepTimeoutMs, headers: announce("reply", data, chunk) });
  for (let index = 1; index < count; index += 1) {
    const want = numberHeader(current, wantHeader);
    if (want !== index || !current.reply) throw aideError("TRANSFER_FAILED", { size: data.length, detail: `the requester asked for chunk ${want ?? "none"} when ${index} was next` });
    const body = sliceOf(data, index, chunk);
    if (index === count - 1) current.respond(body, { headers: single(indexHeader, index) });
    else current = await connection.request(current.reply, body, { timeout: chunkStepTimeoutMs, headers: single(indexHeader, index) });
  }
}
