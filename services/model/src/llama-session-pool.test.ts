import { describe, expect, it } from "vitest";
import { SessionPool, type SequenceSource } from "./llama-session-pool.js";

class FakeSequence {
  disposed = false;
  constructor(
    readonly id: number,
    private readonly source: FakeSource,
  ) {}
  async dispose() {
    await Promise.resolve();
    this.disposed = true;
    this.source.free++;
  }
}
class FakeSource implements SequenceSource<FakeSequence> {
  free: number;
  next = 0;
  constructor(size: number) {
    this.free = size;
  }
  get sequencesLeft() {
    return this.free;
  }
  getSequence() {
    if (this.free <= 0) throw new Error("No sequences left");
    this.free--;
    return new FakeSequence(this.next++, this);
  }
}

describe("SessionPool", () => {
  it("keeps one sequence per session and reuses it", async () => {
    const pool = new SessionPool(new FakeSource(2));
    const a1 = await pool.use("a", async (s) => s);
    const a2 = await pool.use("a", async (s) => s);
    expect(a1).toBe(a2);
  });

  it("evicts the least recently used idle session when full", async () => {
    const pool = new SessionPool(new FakeSource(2));
    const a = await pool.use("a", async (s) => s);
    await pool.use("b", async (s) => s);
    await pool.use("a", async (s) => s);
    await pool.use("c", async (s) => s);
    expect(pool.ids().sort()).toEqual(["a", "c"]);
    expect(a.disposed).toBe(false);
  });

  it("never evicts a session in use, and answers BUSY when all are", async () => {
    const pool = new SessionPool(new FakeSource(1));
    let release!: () => void;
    const running = pool.use("a", () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await expect(pool.use("b", async () => 1)).rejects.toMatchObject({ code: "BUSY" });
    release();
    await running;
    expect(await pool.use("b", async () => 2)).toBe(2);
  });

  it("serializes requests on one session", async () => {
    const pool = new SessionPool(new FakeSource(2));
    const order: string[] = [];
    let release!: () => void;
    const first = pool.use("a", async () => {
      order.push("first start");
      await new Promise<void>((resolve) => (release = resolve));
      order.push("first end");
    });
    const second = pool.use("a", async () => void order.push("second"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first start", "first end", "second"]);
  });

  it("creates sessions concurrently without running out of sequences", async () => {
    const source = new FakeSource(2);
    const pool = new SessionPool(source);
    await pool.use("a", async () => undefined);
    await pool.use("b", async () => undefined);
    await Promise.all(["c", "d", "e"].map((id) => pool.use(id, async () => undefined)));
    expect(pool.ids()).toHaveLength(2);
  });

  it("a one-off request runs on a sequence of its own, disposed after, and leaves the session's sequence alone", async () => {
    const source = new FakeSource(2);
    const pool = new SessionPool(source);
    const own = await pool.use("a", async (s) => s);
    const oneOff = await pool.useOneOff("a", async (s) => s);
    expect(oneOff).not.toBe(own);
    expect(oneOff.disposed).toBe(true);
    expect(own.disposed).toBe(false);
    expect(await pool.use("a", async (s) => s)).toBe(own);
    expect(pool.ids()).toEqual(["a"]);
  });

  it("a one-off request evicts another idle session before the requesting one, and falls back to it only when alone", async () => {
    const pool = new SessionPool(new FakeSource(2));
    const a = await pool.use("a", async (s) => s);
    const b = await pool.use("b", async (s) => s);
    await pool.use("a", async () => undefined);
    // "a" is the least recently used after this line, yet it is the requester: "b" goes.
    await pool.use("b", async () => undefined);
    await pool.useOneOff("a", async () => undefined);
    expect(b.disposed).toBe(true);
    expect(a.disposed).toBe(false);
    const single = new SessionPool(new FakeSource(1));
    const only = await single.use("a", async (s) => s);
    let fellBack = false;
    expect(
      await single.useOneOff(
        "a",
        async (s) => s,
        () => (fellBack = true),
      ),
    ).toBe(only);
    expect(fellBack).toBe(true);
  });
});
