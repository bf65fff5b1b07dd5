import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ExperimentSettingsSchema, type ExperimentSettings } from "@aide/contracts";
import { installedRealModels, modelCacheDir } from "@aide/model";
import { installRoot } from "../supervisor/aide-home.js";

/** The demo uses a fetched real model only when it solved the demo's task this often. */
export const demoPassesNeeded = { passed: 8, attempts: 10 };

/**
 * `examples/demo-model.json`: the models tried on the demo's task and how each did, a small file
 * a person reviews and commits after `npm run bench:demo-real`. The demo reads only this file:
 * a benchmark's output folder is never a product input.
 */
const DemoCandidatesSchema = z.object({
  task: z.string(),
  candidates: z.array(
    z.object({
      model: z.string(),
      arm: z.string().optional(),
      settings: ExperimentSettingsSchema.default({}),
      passed: z.number().int().nonnegative(),
      attempts: z.number().int().nonnegative(),
      false_done: z.number().int().nonnegative(),
      /** The day of the measurement (YYYY-MM-DD). */
      measured_at: z.string(),
      /** Where its per-attempt rows and report are kept (bench/results/...), for a reader. */
      run: z.string().optional(),
    }),
  ),
});

export interface DemoMeasurement {
  model: string;
  arm?: string;
  passed: number;
  attempts: number;
  falseDone: number;
  settings: ExperimentSettings;
  measuredAt: string;
}

export type DemoModelChoice = { kind: "real"; measured: DemoMeasurement; file: string; source: string } | { kind: "replay"; reason: string };

export const demoCandidatesPath = () => join(installRoot, "examples", "demo-model.json");

/**
 * The real model the demo runs: a fetched model that passed the demo's hidden check in at least 8
 * of 10 attempts with no false `done` (the best rate wins), with the settings it did that with.
 * Otherwise the replay, saying which models and arms were tried and their rates.
 */
export function chooseDemoModel(candidatesFile = demoCandidatesPath(), cache = modelCacheDir()): DemoModelChoice {
  const installed = new Map(installedRealModels(cache, existsSync).map((entry) => [entry.id as string, entry.path]));
  if (!existsSync(candidatesFile)) {
    return {
      kind: "replay",
      reason:
        installed.size > 0
          ? `the fetched real models (${[...installed.keys()].join(", ")}) have not been measured on this task yet (npm run bench:demo-real)`
          : "no real model has been fetched (bash scripts/install.sh --with-models)",
    };
  }
  let text: unknown;
  try {
    text = JSON.parse(readFileSync(candidatesFile, "utf8"));
  } catch (error) {
    return { kind: "replay", reason: `${candidatesFile} is not JSON (${(error as Error).message})` };
  }
  const parsed = DemoCandidatesSchema.safeParse(text);
  if (!parsed.success) return { kind: "replay", reason: `${candidatesFile} is not a list of demo measurements (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})` };
  const measured: DemoMeasurement[] = parsed.data.candidates.map((entry) => ({
    model: entry.model,
    ...(entry.arm ? { arm: entry.arm } : {}),
    passed: entry.passed,
    attempts: entry.attempts,
    falseDone: entry.false_done,
    settings: entry.settings,
    measuredAt: entry.measured_at,
  }));
  const rate = (entry: DemoMeasurement) => entry.passed / Math.max(1, entry.attempts);
  const good = measured
    .filter((entry) => entry.attempts >= demoPassesNeeded.attempts && rate(entry) >= demoPassesNeeded.passed / demoPassesNeeded.attempts && entry.falseDone === 0 && installed.has(entry.model))
    .sort((a, b) => rate(b) - rate(a));
  if (good.length > 0) return { kind: "real", measured: good[0], file: installed.get(good[0].model) as string, source: candidatesFile };
  const days = [...new Set(measured.map((entry) => entry.measuredAt.slice(0, 10)))].sort();
  const at = days.length === 0 ? "" : ` (${days.length === 1 ? days[0] : `${days[0]} to ${days[days.length - 1]}`})`;
  const tried = measured.map((entry) => `${entry.model}${entry.arm ? ` (${entry.arm})` : ""} ${entry.passed} of ${entry.attempts}`).join(", ");
  return { kind: "replay", reason: `tried on this task${at}: ${tried || "nothing"}; the demo uses a real model from ${demoPassesNeeded.passed} of ${demoPassesNeeded.attempts} passes on` };
}
