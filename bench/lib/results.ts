import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The bench/ folder (this file compiles to bench/dist/lib/results.js). */
export const benchRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const repoRoot = join(benchRoot, "..");

/** Writes bench/results/<name>.json with the machine facts beside the figures. */
export function writeBenchResult(name: string, figures: Record<string, unknown>): string {
  const dir = join(benchRoot, "results");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  const machine = { cpus: cpus().length, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version };
  writeFileSync(path, JSON.stringify({ ...figures, machine, at: new Date().toISOString() }, null, 2) + "\n");
  return path;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
