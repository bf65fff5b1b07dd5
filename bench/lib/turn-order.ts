/**
 * The paths of turn `i` of a benchmark that times several paths call by call, starting at a
 * different one each turn: no path always runs right after the same other one (whose process
 * then still holds the caches and the cores), and none always goes first.
 */
export function turnOrder<T>(names: readonly T[], i: number): T[] {
  const start = i % names.length;
  return [...names.slice(start), ...names.slice(0, start)];
}
