/**
 * `--arm NAME=SETTINGS` of `aide eval run`: a named set of experiment settings, e.g.
 * `--arm lean=prompt_tier=compact,grammar=off`, `--arm whole=grammar=reply,grammar_schema=on`,
 * `--arm serial=scheduler=serial-v1` or `--arm tested=auto_test=on,test_command=npm test` (the
 * strategies take on/off). The settings
 * are checked with the start command's own schema (`ExperimentSettingsSchema`), so an arm the
 * orchestrator would refuse is refused here first, naming the setting and what it accepts.
 */
import { z } from "zod";
import { ArmNameSchema, ExperimentSettingsSchema, armValuesOf, settingNames, settingTable, type ExperimentSettings, type SettingName } from "@aide/contracts";

export interface EvalArm {
  name: string;
  settings: ExperimentSettings;
}

export class ArmSyntaxError extends Error {}

const isSetting = (key: string): key is SettingName => (settingNames as readonly string[]).includes(key);

/** The settings as the help lists them: each name, with its values when they are not on/off or free text. */
export function armSettingsSummary(): string {
  return settingNames
    .map((name) => {
      const values = armValuesOf(name);
      return values === undefined || values.join("|") === "on|off" ? name : `${name} (${values.join("|")})`;
    })
    .join(", ");
}

/** One `key=value` into `settings`; `label` names the flag in messages (`--arm lean`, `--setting`). */
function addSetting(settings: Record<string, unknown>, pair: string, label: string): void {
  const [key, value, ...rest] = pair.split("=");
  if (!isSetting(key)) throw new ArmSyntaxError(`${label}: unknown setting ${JSON.stringify(key)}; the settings are ${settingNames.join(", ")}`);
  if (key in settings) throw new ArmSyntaxError(`${label}: ${key} is set twice`);
  const values = armValuesOf(key);
  if (values === undefined) {
    // Free text: everything after the first '=' (in an arm, up to the next ',': a command without commas).
    const text = pair.slice(key.length + 1).trim();
    if (value === undefined || text === "") throw new ArmSyntaxError(`${label}: ${key} needs a value, as in ${key}=npm test`);
    settings[key] = text;
    return;
  }
  if (value === undefined || rest.length > 0 || !values.includes(value)) throw new ArmSyntaxError(`${label}: ${key} is one of ${values.join(", ")}, not ${JSON.stringify(value ?? "")}`);
  if (key === "grammar") {
    // The grammar's scope rides along: call (prose, then one call) or reply (the whole reply is the call).
    settings.grammar = value !== "off";
    if (value === "call" || value === "reply") settings.grammar_scope = value;
    return;
  }
  settings[key] = settingTable[key].schema instanceof z.ZodBoolean ? value === "on" : value;
}

function checked(settings: Record<string, unknown>, label: string): ExperimentSettings {
  const parsed = ExperimentSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new ArmSyntaxError(`${label}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  return parsed.data;
}

export function parseArm(text: string): EvalArm {
  const equals = text.indexOf("=");
  const name = equals === -1 ? text : text.slice(0, equals);
  if (!ArmNameSchema.safeParse(name).success)
    throw new ArmSyntaxError(`--arm ${JSON.stringify(text)}: the arm's name comes first (letters, digits, '.', '_', '-'), as in --arm lean=prompt_tier=compact`);
  const settings: Record<string, unknown> = { arm: name };
  const body = equals === -1 ? "" : text.slice(equals + 1);
  for (const pair of body
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean))
    addSetting(settings, pair, `--arm ${name}`);
  return { name, settings: checked(settings, `--arm ${name}`) };
}

/**
 * `aide run --setting KEY=VALUE` (repeatable): the same settings as an arm's, one per flag, so a
 * value may hold commas (`--setting "test_command=make test ARGS=a,b"`).
 */
export function parseSettings(pairs: readonly string[]): ExperimentSettings {
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) addSetting(settings, pair.trim(), `--setting ${pair}`);
  return checked(settings, "--setting");
}

/** Several `--arm` flags: names must differ. */
export function parseArms(texts: readonly string[]): EvalArm[] {
  const arms = texts.map(parseArm);
  const names = arms.map((arm) => arm.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new ArmSyntaxError(`--arm ${twice} is given twice`);
  return arms;
}
