import type { RunContext } from "../run/run-context.js";

/**
 * A strategy's scratch state for one run (a listing, a test command, the previous reply's errors),
 * in its own slot of the run's `strategyState`, created on first use. `key` is the strategy's
 * setting, or the name of a helper that several strategies share.
 */
export function strategyState<T extends object>(context: RunContext, key: string, create: () => T): T {
  const slots = (context.strategyState ??= new Map());
  let slot = slots.get(key) as T | undefined;
  if (slot === undefined) {
    slot = create();
    slots.set(key, slot);
  }
  return slot;
}
