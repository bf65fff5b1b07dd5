import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time (ms) used so far by the given processes, all their threads, from the scheduler's own
 * nanosecond counters (/proc/<pid>/task/<tid>/schedstat). The machine is shared (2 cores, other
 * engineers' tests running), so wall time is noisy; CPU time is what a path costs.
 */
export function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return total;
}

/** Runs `work`, with the wall time and the CPU time of process `pid` it took (ms). */
export async function timed<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const cpu0 = cpuMs([pid]);
  const t0 = performance.now();
  const value = await work();
  return { value, wall: performance.now() - t0, cpu: cpuMs([pid]) - cpu0 };
}
