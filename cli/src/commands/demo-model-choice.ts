import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { ExperimentSettingsSchema, type ExperimentSettings } from "@aide/contracts";
import { installedRealModels, modelCacheDir } from "@aide/model";
import { installRoot } from "../supervisor/aide-home.js";

/** The demo uses a fetched real model only when it solved the demo's task this often (issue 28 item 7). */
export const demoPassesNeeded = { passed: 8, attempts: 10 };

/** What `npm run bench:demo-real` measured: the demo's task, per real model and arm. */
const DemoFiguresSchema = z.object({
  variants: z.array(z.object({ model: z.string(), arm: z.string().optional(), passed: z.number().int(), attempts: z.number().int(), false_done: z.number().int() })),
  arm_settings: z.record(z.string(), ExperimentSettingsSchema).default({}),
  /** When the bench finished (absent in older figures: the report.json beside them says). */
  measured_at: z.string().optional(),
});

/** When a measurement was made: its figures' `measured_at`, else the `generated_at` of the report.json beside it; a checkout's file times say nothing. */
function measuredAt(file: string, figures: z.infer<typeof DemoFiguresSchema>): string | undefined {
  if (figures.measured_at !== undefined) return figures.measured_at;
  const report = join(dirname(file), "report.json");
  if (!existsSync(report)) return undefined;
  const parsed = z.object({ generated_at: z.string() }).safeParse(JSON.parse(readFileSync(report, "utf8")));
  return parsed.success ? parsed.data.generated_at : undefined;
}

export interface DemoMeasurement {
  model: string;
  arm?: string;
  passed: number;
  attempts: number;
  falseDone: number;
  settings: ExperimentSettings;
  path: string;
}

export type DemoModelChoice =
  | { kind: "real"; measured: DemoMeasurement; file: string; source: string }
  | { kind: "replay"; reason: string };

export const demoFiguresPath = () => join(installRoot, "bench", "results", "demo-real", "figures.json");

/** The measurement files: `figuresFile`, then the figures.json of each folder beside it (a later run of other arms, e.g. demo-real/s39-imports/). */
function measurementFiles(figuresFile: string): string[] {
  const dir = dirname(figuresFile);
  const nested = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name, "figures.json")).filter((file) => existsSync(file)).sort()
    : [];
  return [...(existsSync(figuresFile) ? [figuresFile] : []), ...nested];
}

/**
 * The real model the demo runs, from the committed measurements (figuresFile and those of the
 * folders beside it): a fetched model whose best arm passed the demo's hidden check in at least 8
 * of 10 attempts of one run (at that rate or better), with that arm's settings. Otherwise the
 * replay, saying which models and arms were tried and their rates.
 */
export function chooseDemoModel(figuresFile = demoFiguresPath(), cache = modelCacheDir()): DemoModelChoice {
  const installed = new Map(installedRealModels(cache, existsSync).map((entry) => [entry.id as string, entry.path]));
  const files = measurementFiles(figuresFile);
  if (files.length === 0) {
    return { kind: "replay", reason: installed.size > 0 ? `the fetched real models (${[...installed.keys()].join(", ")}) have not been measured on this task yet (npm run bench:demo-real)` : "no real model has been fetched (bash scripts/install.sh --with-models)" };
  }
  const measured: DemoMeasurement[] = [];
  const dates: string[] = [];
  for (const file of files) {
    const parsed = DemoFiguresSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) return { kind: "replay", reason: `${file} is not a demo measurement` };
    const at = measuredAt(file, parsed.data);
    if (at !== undefined) dates.push(at.slice(0, 10));
    for (const variant of parsed.data.variants) {
      measured.push({
        model: variant.model, ...(variant.arm ? { arm: variant.arm } : {}), passed: variant.passed, attempts: variant.attempts, falseDone: variant.false_done,
        settings: variant.arm ? parsed.data.arm_settings[variant.arm] ?? {} : {}, path: file,
      });
    }
  }
  const rate = (entry: DemoMeasurement) => entry.passed / Math.max(1, entry.attempts);
  const good = measured
    .filter((entry) => entry.attempts >= demoPassesNeeded.attempts && rate(entry) >= demoPassesNeeded.passed / demoPassesNeeded.attempts && entry.falseDone === 0 && installed.has(entry.model))
    .sort((a, b) => rate(b) - rate(a));
  if (good.length > 0) return { kind: "real", measured: good[0], file: installed.get(good[0].model) as string, source: figuresFile };
  const days = [...new Set(dates)].sort();
  const at = days.length === 0 ? "" : ` (${days.length === 1 ? days[0] : `${days[0]} to ${days[days.length - 1]}`})`;
  const tried = measured.map((entry) => `${entry.model}${entry.arm ? ` (${entry.arm})` : ""} ${entry.passed} of ${entry.attempts}`).join(", ");
  return { kind: "replay", reason: `tried on this task${at}: ${tried || "nothing"}; the demo uses a real model from ${demoPassesNeeded.passed} of ${demoPassesNeeded.attempts} passes on` };
}
