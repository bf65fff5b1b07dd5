import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { applyDelta, encodeDelta } from "./delta.js";

const text = (lines: number, seed: string) => Buffer.from(Array.from({ length: lines }, (_, i) => `${seed} line ${i} ${(i * 7919) % 1000}\n`).join(""));

describe("git deltas", () => {
  it("rebuild the target byte-exact after an append, an insertion, a deletion and a rewrite in the middle", () => {
    const base = text(400, "const");
    const edits = [
      Buffer.concat([base, Buffer.from("// appended\n")]),
      Buffer.concat([base.subarray(0, 5000), Buffer.from("inserted text\n"), base.subarray(5000)]),
      Buffer.concat([base.subarray(0, 3000), base.subarray(4000)]),
      Buffer.concat([base.subarray(0, 2000), randomBytes(300), base.subarray(2300)]),
      Buffer.concat([Buffer.from("x"), base]),
    ];
    for (const target of edits) {
      const delta = encodeDelta(base, target);
      expect(delta).toBeDefined();
      expect(delta!.length).toBeLessThan(target.length / 10);
      expect(applyDelta(base, delta!).equals(target)).toBe(true);
    }
  });

  it("gives up when nothing is shared, and handles empty and tiny objects", () => {
    expect(encodeDelta(randomBytes(4000), randomBytes(4000), 1000)).toBeUndefined();
    for (const [base, target] of [
      [Buffer.alloc(0), Buffer.from("abc")],
      [Buffer.from("abc"), Buffer.alloc(0)],
      [Buffer.from("short"), Buffer.from("shorter")],
    ]) {
      const delta = encodeDelta(base, target, 1000)!;
      expect(applyDelta(base, delta).equals(target)).toBe(true);
    }
  });

  it("copies ranges past 64 KiB and offsets past 16 MiB (multi-byte copy fields)", () => {
    // Zeros hash alike (one index entry), so only the text past 17 MiB can match.
    const base = Buffer.concat([Buffer.alloc(17 * 1024 * 1024), text(5000, "tail")]);
    const target = Buffer.concat([base.subarray(17 * 1024 * 1024 + 5), Buffer.from("end\n")]);
    const delta = encodeDelta(base, target)!;
    expect(delta.length).toBeLessThan(100);
    expect(applyDelta(base, delta).equals(target)).toBe(true);
  });

  it("refuses a delta made for another base, and malformed instructions", () => {
    const base = text(100, "a");
    const delta = encodeDelta(base, Buffer.concat([base, Buffer.from("b\n")]))!;
    expect(() => applyDelta(base.subarray(1), delta)).toThrow(/base is/);
    expect(() => applyDelta(base, Buffer.concat([delta.subarray(0, delta.length - 1)]))).toThrow(/malformed/);
    expect(() => applyDelta(Buffer.from("ab"), Buffer.from([2, 1, 0]))).toThrow(/reserved/);
  });
});
