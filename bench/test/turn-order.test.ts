import { describe, expect, it } from "vitest";
import { turnOrder } from "../lib/turn-order.js";

describe("turnOrder", () => {
  it("runs every path once a turn, each first in one of n turns, and no path always right after the same one", () => {
    const names = ["direct", "sandboxed", "aide", "status", "raw"];
    const sequence: string[] = [];
    for (let i = 0; i < 2 * names.length; i++) {
      const turn = turnOrder(names, i);
      expect([...turn].sort()).toEqual([...names].sort());
      expect(turn[0]).toBe(names[i % names.length]);
      sequence.push(...turn);
    }
    for (const name of names) {
      const predecessors = new Set(sequence.flatMap((entry, k) => (entry === name && k > 0 ? [sequence[k - 1]] : [])));
      expect(predecessors.size).toBeGreaterThan(1);
    }
  });
});
