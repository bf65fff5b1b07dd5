/**
 * The statistics `aide eval report` compares two arms or models with, on the same tasks: an exact
 * McNemar test on paired pass/fail outcomes, and a bootstrap interval for the median of paired
 * differences (time, tokens). Pure and deterministic (a seeded generator), so a report can be
 * reproduced from its results file.
 */

/** ln(n!) by summing logs: exact enough for the pair counts of an eval run. */
function logFactorial(n: number): number {
  let sum = 0;
  for (let k = 2; k <= n; k++) sum += Math.log(k);
  return sum;
}

function binomialProbability(n: number, k: number): number {
  return Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) - n * Math.LN2);
}

/**
 * Two-sided exact McNemar p-value from the discordant pairs: `onlyA` tasks passed by A alone,
 * `onlyB` by B alone (a binomial test of onlyA against n = onlyA + onlyB at p = 1/2).
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const low = Math.min(onlyA, onlyB);
  let tail = 0;
  for (let k = 0; k <= low; k++) tail += binomialProbability(n, k);
  return Math.min(1, 2 * tail);
}

/** A small seeded generator (mulberry32): the same seed, the same interval. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle];
}

export interface Interval {
  estimate: number;
  low: number;
  high: number;
  /** The interval excludes 0: the difference is there at this confidence. */
  significant: boolean;
}

/** A percentile bootstrap interval for the median of paired differences (b − a). */
export function bootstrapMedianDifference(pairs: ReadonlyArray<readonly [number, number]>, options: { iterations?: number; confidence?: number; seed?: number } = {}): Interval {
  const differences = pairs.map(([a, b]) => b - a);
  const estimate = median(differences);
  if (differences.length < 2) return { estimate, low: Number.NaN, high: Number.NaN, significant: false };
  const iterations = options.iterations ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const random = seededRandom(options.seed ?? 1);
  const medians: number[] = [];
  const sample = new Array<number>(differences.length);
  for (let i = 0; i < iterations; i++) {
    for (let j = 0; j < differences.length; j++) sample[j] = differences[Math.floor(random() * differences.length)];
    medians.push(median(sample));
  }
  medians.sort((a, b) => a - b);
  const low = medians[Math.floor(((1 - confidence) / 2) * iterations)];
  const high = medians[Math.min(iterations - 1, Math.ceil((1 - (1 - confidence) / 2) * iterations) - 1)];
  return { estimate, low, high, significant: low > 0 || high < 0 };
}
