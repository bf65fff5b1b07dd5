import { z } from "zod";
import { settingDefaults, settingNames, settingTable, type EditFormat, type SettingName } from "./setting-table.js";

/**
 * Per-session experiment settings (`aide run --setting`, `aide eval run --arm`): each one
 * overrides a decision the orchestrator otherwise makes itself, and each value is an identifier
 * that goes into `run.created` (and, for the scheduler and the context policy, into every event's
 * envelope), so an evaluation can tell the arms apart from the events alone. Unknown settings and
 * unknown values are refused (VALIDATION naming the field). The settings, their values, defaults and
 * descriptions are the table's (setting-table.ts); the schemas here are derived from it.
 */

/** An arm's name: what a report groups by. */
export const ArmNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "an arm name is 1-64 letters, digits, '.', '_' or '-'");

type Table = typeof settingTable;
type SettingsShape = { [K in SettingName]: z.ZodOptional<Table[K]["schema"]> };
type RecordShape = { [K in SettingName]: Table[K]["recordSchema"] };

const settingsShape = Object.fromEntries(settingNames.map((name) => [name, settingTable[name].schema.describe(settingTable[name].description).optional()])) as unknown as SettingsShape;

export const ExperimentSettingsSchema = z
  .object({
    arm: ArmNameSchema.optional(),
    ...settingsShape,
  })
  .strict();
export type ExperimentSettings = z.infer<typeof ExperimentSettingsSchema>;

/** The settings `run.created` records in force (default filled in) whatever the start set. */
export const inForceSettingNames: readonly SettingName[] = settingNames.filter((name) => settingTable[name].recorded === "in-force");

/** The on/off strategies, as `run.created` records them (their default when the start did not set one). */
export const strategySettingNames = settingNames.filter((name) => settingTable[name].recorded === "in-force" && settingTable[name].schema instanceof z.ZodBoolean) as StrategySetting[];
/** An on/off strategy's name (a boolean setting `run.created` records in force). */
export type StrategySetting = { [K in SettingName]: Table[K]["recorded"] extends "in-force" ? (z.infer<Table[K]["schema"]> extends boolean ? K : never) : never }[SettingName];

const recordShape = Object.fromEntries(settingNames.map((name) => [name, settingTable[name].recordSchema])) as unknown as RecordShape;

/**
 * What `run.created` records of the run's experiment: the identifiers in force (defaults filled
 * in) and the settings the start asked for (the table's `recorded`; the tier in force is in each
 * `context.built`). Identifiers are strings so that events of older strategies still parse on replay;
 * a strategy field is absent in events of older runs.
 */
export const RunExperimentSchema = z.object({
  strategy: z.string(),
  arm: z.string().optional(),
  ...recordShape,
  /** Where the edit format came from: the start's setting, the model's registry entry, or the default. */
  edit_format_source: z.enum(["setting", "model", "default"]).optional(),
});
export type RunExperiment = z.infer<typeof RunExperimentSchema>;

/** The edit format when a start sets none (the router's choice). */
export const defaultEditFormat: EditFormat = settingDefaults.edit_format;

/** What the orchestrator decides when a start sets nothing: identifiers, and the strategies it turns on by configuration. */
export interface ExperimentDefaults {
  strategy: string;
  scheduler: string;
  context_policy: string;
  /** The model's own edit format (its registry entry's `editFormat`), used when the start sets none. */
  edit_format?: EditFormat;
  strategies?: Partial<Record<StrategySetting, boolean>>;
}

/** The experiment a run with these settings runs under, as `run.created` records it. */
export function runExperimentOf(settings: ExperimentSettings | undefined, defaults: ExperimentDefaults): RunExperiment {
  const configured: Partial<Record<SettingName, unknown>> = { scheduler: defaults.scheduler, context_policy: defaults.context_policy, edit_format: defaults.edit_format, ...defaults.strategies };
  const fixed = settingDefaults as Partial<Record<SettingName, unknown>>;
  const recorded = settingNames.flatMap((name) => {
    const value = settingTable[name].recorded === "in-force" ? (settings?.[name] ?? configured[name] ?? fixed[name]) : settings?.[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  const editFormatSource = settings?.edit_format !== undefined ? "setting" : defaults.edit_format !== undefined ? "model" : "default";
  return {
    strategy: defaults.strategy,
    ...(settings?.arm !== undefined ? { arm: settings.arm } : {}),
    ...(Object.fromEntries(recorded) as Omit<RunExperiment, "strategy" | "arm" | "edit_format_source">),
    edit_format_source: editFormatSource,
  };
}
