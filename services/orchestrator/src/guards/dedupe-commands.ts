import { callKey, COMMAND_TOOLS } from "./call-key.js";

/**
 * Drops repeated commands within one batch (the same command twice in a response runs once).
 * Order is kept; only command tools are deduplicated, other calls pass through untouched.
 */
export function dedupeCommands<T extends { name: string; arguments: Record<string, unknown> }>(calls: T[]): { kept: T[]; dropped: T[] } {
  const seen = new Set<string>();
  const kept: T[] = [];
  const dropped: T[] = [];
  for (const call of calls) {
    if (!COMMAND_TOOLS.has(call.name)) {
      kept.push(call);
      continue;
    }
    const key = callKey(call);
    if (seen.has(key)) dropped.push(call);
    else {
      seen.add(key);
      kept.push(call);
    }
  }
  return { kept, dropped };
}
