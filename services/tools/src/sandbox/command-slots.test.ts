import { describe, expect, it } from "vitest";
import { createCommandSlots } from "./command-slots.js";

describe("command slots", () => {
  it("runs up to the limit, queues in order, and answers BUSY past the queue", async () => {
    const slots = createCommandSlots(2, 1);
    const first = await slots.acquire();
    const second = await slots.acquire();
    const order: string[] = [];
    const third = slots.acquire().then((release) => {
      order.push("third");
      return release;
    });
    expect(slots.waiting()).toBe(1);
    await expect(slots.acquire()).rejects.toMatchObject({ code: "BUSY" });
    first();
    (await third)();
    second();
    expect(order).toEqual(["third"]);
    expect(slots.inUse()).toBe(0);
  });

  it("drops a waiter whose call was aborted", async () => {
    const slots = createCommandSlots(1, 4);
    const held = await slots.acquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "ABORTED" });
    expect(slots.waiting()).toBe(0);
    held();
  });

  it("is fair across sessions: one session's burst does not make another's command wait for all of it", async () => {
    const slots = createCommandSlots(1, 16, 8);
    const order: string[] = [];
    const held = await slots.acquire(undefined, "burst");
    const burst = Array.from({ length: 6 }, (_, index) =>
      slots.acquire(undefined, "burst").then((release) => {
        order.push(`burst#${index}`);
        release();
      }),
    );
    const other = slots.acquire(undefined, "other").then((release) => {
      order.push("other");
      release();
    });
    held();
    await Promise.all([...burst, other]);
    expect(order.indexOf("other")).toBe(0);
    expect(order.filter((entry) => entry !== "other")).toEqual(Array.from({ length: 6 }, (_, index) => `burst#${index}`));
  });

  it("bounds one session's waiting commands: past its share it gets BUSY with a retry hint while others still queue", async () => {
    const slots = createCommandSlots(1, 16, 2);
    const held = await slots.acquire(undefined, "a");
    const waiting = [slots.acquire(undefined, "a"), slots.acquire(undefined, "a")];
    await expect(slots.acquire(undefined, "a")).rejects.toMatchObject({ code: "BUSY", details: { queue: "commands" } });
    const other = slots.acquire(undefined, "b");
    expect(slots.waiting()).toBe(3);
    held();
    await Promise.all([...waiting, other].map((entry) => entry.then((release) => release())));
    expect(slots.inUse()).toBe(0);
  });
});
