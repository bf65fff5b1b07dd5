import { randomBytes, randomInt } from "node:crypto";
import { connect } from "node:net";
import WebSocket from "ws";

/** What the WebSocket fuzz tried and how the gateway answered. */
export interface WsFuzzCounts {
  connections: number;
  frames_sent: number;
  oversized_frames: number;
  raw_handshakes: number;
  /** How attempts ended: an HTTP status of a refused upgrade, a close code, or a client-side outcome. */
  outcomes: Record<string, number>;
  /** Answers a client should never get: a 5xx upgrade answer, no answer at all within 10 s, a reset. */
  failures: Array<{ kind: string; detail: string }>;
}

export interface WsFuzzTarget {
  port: number;
  token: string;
  /** Sessions that exist, with their highest event seq (resume tokens are drawn around it). */
  sessions(): Array<{ id: string; lastSeq: number }>;
}

const pick = <T>(items: T[]): T => items[randomInt(items.length)]!;

function randomSession(target: WsFuzzTarget): string {
  const real = target.sessions();
  return pick([
    () => (real.length > 0 ? pick(real).id : "nosuch"),
    () => "nosuch-" + randomBytes(4).toString("hex"),
    () => "../../etc/passwd",
    () => "x".repeat(randomInt(100, 5000)),
    () => "\u0000\u202e" + "%ED%A0%80",
    () => "",
  ])();
}

/** A resume token (`since`): valid, beyond the end, backwards, negative, not a number, huge. */
function randomSince(target: WsFuzzTarget, session: string): string {
  const last = target.sessions().find((each) => each.id === session)?.lastSeq ?? 0;
  return pick([
    () => "0",
    () => String(last),
    () => String(Math.max(0, last - randomInt(1, 5))),
    () => String(last + randomInt(1, 1000)),
    () => "-1",
    () => "abc",
    () => "1e309",
    () => "9".repeat(40),
    () => "0x10",
    () => "",
  ])();
}

function record(counts: WsFuzzCounts, outcome: string): void {
  counts.outcomes[outcome] = (counts.outcomes[outcome] ?? 0) + 1;
}

/** One client through the `ws` library: a random handshake, then random, malformed or oversized frames, then a random ending. */
async function wsAttempt(target: WsFuzzTarget, counts: WsFuzzCounts): Promise<void> {
  const session = randomSession(target);
  const query = `session=${encodeURIComponent(session)}&since=${encodeURIComponent(randomSince(target, session))}`;
  const auth = pick([`Bearer ${target.token}`, `Bearer ${target.token}`, `Bearer ${target.token}`, "Bearer wrong", "", `Basic ${target.token}`]);
  const headers: Record<string, string> = auth ? { authorization: auth } : {};
  if (randomInt(10) === 0) headers.origin = pick(["http://evil.example", "null", `http://127.0.0.1:${target.port}`]);
  counts.connections += 1;
  await new Promise<void>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${target.port}/api/events?${query}`, { headers, handshakeTimeout: 10_000, maxPayload: 8 << 20 });
    let settled = false;
    const done = (outcome: string) => {
      if (settled) return;
      settled = true;
      record(counts, outcome);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      counts.failures.push({ kind: "no answer", detail: `no close within 20 s (${query.slice(0, 80)})` });
      ws.terminate();
      done("timeout");
    }, 20_000);
    ws.on("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      if (status >= 500 && status !== 503) counts.failures.push({ kind: `upgrade answered ${status}`, detail: query.slice(0, 80) });
      response.resume();
      done(`http ${status}`);
    });
    ws.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET") counts.failures.push({ kind: "reset", detail: query.slice(0, 80) });
      done(`error ${error.code ?? error.message.slice(0, 40)}`);
    });
    ws.on("close", (code) => done(`close ${code}`));
    ws.on("open", () => {
      const frames = randomInt(0, 6);
      for (let index = 0; index < frames; index += 1) {
        const kind = randomInt(6);
        if (kind === 0) ws.send(randomBytes(randomInt(1, 512)));
        else if (kind === 1)
          ws.send(JSON.stringify({ type: pick(["resume", "ack", "ping", "subscribe", "event"]), since: randomSince(target, session), seq: randomInt(-5, 1e6), session: randomSession(target) }));
        else if (kind === 2) ws.send("{".repeat(randomInt(1, 5000)));
        else if (kind === 3) {
          counts.oversized_frames += 1;
          ws.send(Buffer.alloc(randomInt(70 * 1024, 2 << 20), 0x61));
        } else if (kind === 4) ws.ping(randomBytes(randomInt(0, 125)));
        else ws.send(randomBytes(randomInt(1, 64)).toString("latin1"));
        counts.frames_sent += 1;
      }
      const ending = randomInt(3);
      setTimeout(
        () => {
          if (ending === 0) ws.terminate();
          else ws.close(pick([1000, 1001, 3000, 4999]));
        },
        randomInt(10, 1500),
      );
    });
  });
}

/** One raw TCP client: a broken handshake, or a good one followed by bytes that are no valid frame. */
async function rawAttempt(target: WsFuzzTarget, counts: WsFuzzCounts): Promise<void> {
  counts.raw_handshakes += 1;
  counts.connections += 1;
  const session = randomSession(target);
  const key = pick([randomBytes(16).toString("base64"), "short", ""]);
  const version = pick(["13", "13", "8", "99", ""]);
  const head = `GET /api/events?session=${encodeURIComponent(session)}&since=0 HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nAuthorization: Bearer ${target.token}\r\nUpgrade: ${pick(["websocket", "websocket", "h2c", "WebSocket"])}\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: ${version}\r\n\r\n`;
  await new Promise<void>((resolve) => {
    const socket = connect(target.port, "127.0.0.1");
    let answer = "";
    let settled = false;
    const done = (outcome: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      record(counts, outcome);
      resolve();
    };
    const timer = setTimeout(() => done(answer.startsWith("HTTP/1.1 101") ? "raw: held open" : "raw: silent"), 5_000);
    socket.on("data", (chunk: Buffer) => {
      const first = answer === "";
      answer += chunk.toString("latin1");
      if (first && answer.startsWith("HTTP/1.1 101")) {
        // Frames that break the protocol: unmasked, reserved opcodes and bits, a length past any limit.
        const frame = pick([
          Buffer.from([0x81, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]),
          Buffer.from([0x8b, 0x80, 0, 0, 0, 0]),
          Buffer.from([0xf1, 0x80, 1, 2, 3, 4]),
          Buffer.concat([Buffer.from([0x82, 0xff]), Buffer.alloc(8, 0x7f)]),
          randomBytes(randomInt(1, 64)),
        ]);
        socket.write(frame);
        counts.frames_sent += 1;
      }
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (status && Number(status) >= 500 && status !== "503") counts.failures.push({ kind: `raw upgrade answered ${status}`, detail: head.split("\r\n").slice(4, 7).join(" ") });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => done(`raw: error ${error.code}`));
    socket.on("close", () => done(`raw: ${/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? "closed without answer"}`));
    // Sometimes only part of the handshake, then silence or a hang-up.
    const cut = randomInt(4) === 0 ? randomInt(1, head.length) : head.length;
    socket.write(head.slice(0, cut));
    if (cut < head.length && randomInt(2) === 0) setTimeout(() => socket.end(), randomInt(10, 300));
  });
}

/** `clients` fuzzing clients at once until `until`; each runs attempt after attempt. */
export async function fuzzWebSocket(target: WsFuzzTarget, clients: number, until: number): Promise<WsFuzzCounts> {
  const counts: WsFuzzCounts = { connections: 0, frames_sent: 0, oversized_frames: 0, raw_handshakes: 0, outcomes: {}, failures: [] };
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        if (randomInt(4) === 0) await rawAttempt(target, counts);
        else await wsAttempt(target, counts);
      }
    }),
  );
  return counts;
}
