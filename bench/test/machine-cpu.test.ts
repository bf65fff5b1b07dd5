import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cpuBetween, machineCpu, processTreeCpuMs } from "../lib/machine-cpu.js";

describe("machine-cpu", () => {
  it("counts a reaped child's CPU under its parent and the machine's busy ticks", () => {
    const before = { machine: machineCpu(), processes: { self: processTreeCpuMs(process.pid) } };
    // A child that burns 300 ms of its own CPU (counted by CPU, not by the clock, so a loaded
    // machine only makes it take longer) and is waited for: it lands in this process's cutime.
    const burn = "const u = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; }; while (u() < 300) {} process.stdout.write(String(u()));";
    const child = spawnSync(process.execPath, ["-e", burn], { encoding: "utf8" });
    expect(child.status).toBe(0);
    expect(Number(child.stdout)).toBeGreaterThanOrEqual(300);
    const after = { machine: machineCpu(), processes: { self: processTreeCpuMs(process.pid) } };
    // The kernel's clock ticks (10 ms) round what it reports: a margin of a few ticks.
    expect(after.processes.self!.children - before.processes.self!.children).toBeGreaterThanOrEqual(250);
    const figures = cpuBetween(before, after, 2) as { machine_busy_core_ms: number; per_process_ms: Record<string, number>; per_session_ms: Record<string, number>; cpu_floor_wall_ms: number };
    expect(figures.machine_busy_core_ms).toBeGreaterThanOrEqual(200);
    expect(figures.per_process_ms.self).toBeGreaterThanOrEqual(200);
    expect(figures.per_session_ms.self).toBe(Math.round(figures.per_process_ms.self! / 2));
  });

  it("reports nothing for a process that is gone", () => {
    expect(processTreeCpuMs(2 ** 22 + 12345)).toBeUndefined();
  });
});
