import fc from "fast-check";

/** One property of a fuzz target: what it claims, and the fast-check property that checks it. */
export interface FuzzProperty {
  name: string;
  claim: string;
  property: fc.IProperty<unknown>;
}

/** A property entry; the input type is erased so that targets can list different ones. */
export function claim<T>(name: string, text: string, property: fc.IProperty<T>): FuzzProperty {
  return { name, claim: text, property: property as unknown as fc.IProperty<unknown> };
}

export interface FuzzTarget {
  name: string;
  /** The code under test, in words. */
  subject: string;
  properties: FuzzProperty[];
}

export interface FuzzFailure {
  property: string;
  seed: number;
  /** fast-check's rendering of the shrunk input. */
  counterexample: string;
  error: string;
  shrinks: number;
}

export interface FuzzPropertyCounts {
  name: string;
  claim: string;
  inputs: number;
  failures: number;
  seconds: number;
}

export interface FuzzTargetCounts {
  name: string;
  subject: string;
  inputs: number;
  failures: number;
  seconds: number;
  properties: FuzzPropertyCounts[];
  counterexamples: FuzzFailure[];
}

/** Runs this many inputs per fast-check call, each call with a fresh seed, until the budget is spent. */
const batchRuns = 500;

/**
 * Runs one property for `seconds`: batches of inputs under fresh seeds; a failing batch is
 * shrunk by fast-check and its smallest input kept (once per distinct counterexample), and the
 * run goes on with the next seed, so one failure does not hide the others.
 */
function runProperty(entry: FuzzProperty, seconds: number, firstSeed: number): { counts: FuzzPropertyCounts; failures: FuzzFailure[] } {
  const started = performance.now();
  const until = started + seconds * 1000;
  const failures: FuzzFailure[] = [];
  const seen = new Set<string>();
  let inputs = 0;
  let failed = 0;
  let seed = firstSeed;
  while (performance.now() < until) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const remaining = Math.max(1, Math.round(until - performance.now()));
    const details = fc.check(entry.property, { numRuns: batchRuns, seed, interruptAfterTimeLimit: remaining, markInterruptAsFailure: false });
    inputs += details.numRuns;
    if (!details.failed || details.counterexample === null) continue;
    failed += 1;
    const counterexample = fc.stringify(details.counterexample);
    if (seen.has(counterexample)) continue;
    seen.add(counterexample);
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    failures.push({ property: entry.name, seed, counterexample, error: error.slice(0, 600), shrinks: details.numShrinks });
    if (failures.length >= 20) break;
  }
  return { counts: { name: entry.name, claim: entry.claim, inputs, failures: failed, seconds: Math.round((performance.now() - started) / 100) / 10 }, failures };
}

/** Runs every property of a target, the target's budget split evenly between them. */
export function runTarget(target: FuzzTarget, seconds: number, seed: number): FuzzTargetCounts {
  const share = seconds / target.properties.length;
  const properties: FuzzPropertyCounts[] = [];
  const counterexamples: FuzzFailure[] = [];
  for (const [index, entry] of target.properties.entries()) {
    const run = runProperty(entry, share, seed + index * 7919);
    properties.push(run.counts);
    counterexamples.push(...run.failures);
  }
  return {
    name: target.name,
    subject: target.subject,
    inputs: properties.reduce((sum, p) => sum + p.inputs, 0),
    failures: properties.reduce((sum, p) => sum + p.failures, 0),
    seconds: Math.round(properties.reduce((sum, p) => sum + p.seconds, 0) * 10) / 10,
    properties,
    counterexamples,
  };
}
