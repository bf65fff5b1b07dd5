/**
 * What git keeps of a benchmark: per-attempt rows and one report per run, plus notes and the
 * panel's screenshots. Raw event logs, an attempt's work folder (a copied workspace, a task's
 * hidden check) and rendered pages stay in the cache or are made again by the bench command.
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** The extensions a summary may have: rows, reports, notes, figures, screenshots. */
const summaryExtension = /\.(jsonl|json|md|png|tsv)$/;

/** Why a tracked path under bench/results is raw output rather than a summary; undefined when it is a summary. */
export function rawOutputReason(path: string): string | undefined {
  const parts = path.split("/");
  if (parts.includes("events")) return "an event log";
  if (parts.some((part) => part === ".eval-check" || part === "work")) return "a work folder";
  if (!summaryExtension.test(path)) return "not a summary file (rows .jsonl, reports .md/.json, screenshots .png)";
  return undefined;
}

describe("bench/results in git", () => {
  it("tells raw output from summaries", () => {
    expect(rawOutputReason("bench/results/eval-real/runs/s41-x/events/a--b--0.jsonl")).toBe("an event log");
    expect(rawOutputReason("bench/results/eval-real/runs/s40-p/check-py-median-even-tMTnyN/stats.py")).toMatch(/not a summary/);
    expect(rawOutputReason("bench/results/eval-real/runs/s40-p/check-py-median-even-tMTnyN/.eval-check/check.py")).toBe("a work folder");
    expect(rawOutputReason("bench/results/demo-real/report.html")).toMatch(/not a summary/);
    expect(rawOutputReason("bench/results/eval-real/runs/s41-x/results.jsonl")).toBeUndefined();
    expect(rawOutputReason("bench/results/eval-real/report.md")).toBeUndefined();
  });

  it("holds no event log, work folder or rendered page", () => {
    const tracked = execFileSync("git", ["ls-files", "bench/results"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
    const raw = tracked.map((path) => ({ path, reason: rawOutputReason(path) })).filter((entry) => entry.reason !== undefined);
    expect(raw).toEqual([]);
  });
});
