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
});
