/**
 * The default CPU thread count for local models, from the real core count.
 *
 * Measured on the 2-core build machine with the shipped stories260K model (bench/results/model.json,
 * `threads` figures): 1 thread generated 50 tokens in ~40 ms where 2 threads took
 * 100–860 ms and the library's default of 4 took 58 s for 100 tokens. On a machine this small,
 * every extra thread fights the other processes (nats, the other services, the tests) for a core
 * and llama.cpp's thread barrier makes the whole step wait for the slowest one. So: one thread
 * when there are two cores or fewer, otherwise half the cores (roughly the physical ones,
 * leaving the rest to the bus and the services), at most 8.
 */
export function defaultThreads(cores: number): number {
  if (!Number.isFinite(cores) || cores <= 2) return 1;
  return Math.max(1, Math.min(8, Math.floor(cores / 2)));
}
