import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Clock ticks per second of /proc's counters (USER_HZ; 100 on every Linux this runs on). */
const ticksPerSecond = 100;

export interface MachineCpu {
  /** Busy ticks of all cores (user, nice, system, irq, softirq, steal). */
  busy: number;
  /** All ticks of all cores. */
  total: number;
}

/** The whole machine's CPU counters (/proc/stat's first line). */
export function machineCpu(): MachineCpu {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/**
 * CPU ms of one process: its own threads (utime + stime) and the children it has waited for
 * (cutime + cstime: the shells, jails and git commands a service spawned and reaped), from
 * /proc/<pid>/stat. Undefined once the process is gone.
 */
export function processTreeCpuMs(pid: number | undefined): { own: number; children: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const rest = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // rest[0] is field 3 (state); utime, stime, cutime, cstime are fields 14–17.
    const [utime = 0, stime = 0, cutime = 0, cstime = 0] = rest.slice(11, 15);
    return { own: ((utime + stime) * 1000) / ticksPerSecond, children: ((cutime + cstime) * 1000) / ticksPerSecond };
  } catch {
    return undefined;
  }
}

/** Where the machine's CPU went between two snapshots, per named process tree, and how busy the cores were. */
export function cpuBetween(
  before: { machine: MachineCpu; processes: Record<string, { own: number; children: number } | undefined> },
  after: { machine: MachineCpu; processes: Record<string, { own: number; children: number } | undefined> },
  sessions: number,
): Record<string, unknown> {
  const cores = availableParallelism();
  const busyMs = ((after.machine.busy - before.machine.busy) * 1000) / ticksPerSecond;
  const totalMs = ((after.machine.total - before.machine.total) * 1000) / ticksPerSecond;
  const perProcess: Record<string, number> = {};
  let accounted = 0;
  for (const [name, end] of Object.entries(after.processes)) {
    const start = before.processes[name];
    if (!end || !start) continue;
    const ms = end.own - start.own + (end.children - start.children);
    perProcess[name] = Math.round(ms);
    accounted += ms;
  }
  const round = (value: number) => Math.round(value);
  return {
    cores,
    machine_busy_share: totalMs > 0 ? Math.round((busyMs / totalMs) * 1000) / 1000 : null,
    machine_busy_core_ms: round(busyMs),
    per_process_ms: perProcess,
    other_processes_ms: round(Math.max(0, busyMs - accounted)),
    per_session_ms: Object.fromEntries(Object.entries(perProcess).map(([name, ms]) => [name, round(ms / Math.max(1, sessions))])),
    stack_per_session_ms: round(accounted / Math.max(1, sessions)),
    /** The shortest wall the measured work could take on these cores, if nothing ever waited. */
    cpu_floor_wall_ms: round(accounted / cores),
  };
}
