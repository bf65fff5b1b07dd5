import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cpuBetween, machineCpu, processTreeCpuMs } from "../lib/machine-cpu.js";

describe("machine-cpu", () => {
  it("counts a reaped child's CPU under its parent and the machine's busy ticks", () => {
    const before = { machine: machineCpu(), processes: { self: processTreeCpuMs(process.pid) } };
    // A child that burns about 300 ms of CPU and is waited for: it lands in this process's cutime.
    const child = spawnSync(process.execPath, ["-e", "const end = Date.now() + 300; while (Date.now() < end) {}"]);
    expect(child.status).toBe(0);
    const after = { machine: machineCpu(), processes: { self: processTreeCpuMs(process.pid) } };
    expect(after.processes.self!.children - before.processes.self!.children).toBeGreaterThanOrEqual(200);
    const figures = cpuBetween(before, after, 2) as { machine_busy_core_ms: number; per_process_ms: Record<string, number>; per_session_ms: Record<string, number>; cpu_floor_wall_ms: number };
    expect(figures.machine_busy_core_ms).toBeGreaterThanOrEqual(200);
    expect(figures.per_process_ms.self).toBeGreaterThanOrEqual(200);
    expect(figures.per_session_ms.self).toBe(Math.round(figures.per_process_ms.self! / 2));
  });

  it("reports nothing for a process that is gone", () => {
    expect(processTreeCpuMs(2 ** 22 + 12345)).toBeUndefined();
  });
});
