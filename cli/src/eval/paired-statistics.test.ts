import { describe, expect, it } from "vitest";
import { bootstrapMedianDifference, mcnemarExact, median } from "./paired-statistics.js";

describe("paired statistics", () => {
  it("McNemar's exact test matches the binomial tails computed by hand", () => {
    // 0 vs 6 discordant pairs: 2 * (1/2)^6 = 0.03125.
    expect(mcnemarExact(0, 6)).toBeCloseTo(0.03125, 10);
    // 1 vs 9: 2 * (1 + 10) / 1024.
    expect(mcnemarExact(9, 1)).toBeCloseTo(22 / 1024, 10);
    // Balanced or empty: no evidence of a difference.
    expect(mcnemarExact(5, 5)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
    // 2 vs 3: not significant.
    expect(mcnemarExact(2, 3)).toBeGreaterThan(0.5);
  });

  it("the bootstrap interval finds a real shift and reports none where there is none", () => {
    const shifted = Array.from({ length: 40 }, (_, i) => [100 + (i % 7), 150 + (i % 5)] as const);
    const result = bootstrapMedianDifference(shifted, { seed: 7 });
    expect(result.estimate).toBeGreaterThan(40);
    expect(result.low).toBeGreaterThan(0);
    expect(result.significant).toBe(true);
    const noise = Array.from({ length: 40 }, (_, i) => [100 + ((i * 37) % 11), 100 + ((i * 53) % 11)] as const);
    const flat = bootstrapMedianDifference(noise, { seed: 7 });
    expect(flat.low).toBeLessThanOrEqual(0);
    expect(flat.high).toBeGreaterThanOrEqual(0);
    expect(flat.significant).toBe(false);
  });

  it("is reproducible from its seed, and says nothing from one pair", () => {
    const pairs = Array.from({ length: 15 }, (_, i) => [i, i * 1.5] as const);
    expect(bootstrapMedianDifference(pairs, { seed: 3 })).toEqual(bootstrapMedianDifference(pairs, { seed: 3 }));
    expect(bootstrapMedianDifference([[1, 2]]).significant).toBe(false);
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });
});
