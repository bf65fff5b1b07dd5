/**
 * `--arm NAME=SETTINGS` of `aide eval run`: a named set of experiment settings, e.g.
 * `--arm lean=prompt_tier=compact,grammar=off`, `--arm whole=grammar=reply,grammar_schema=on` or
 * `--arm serial=scheduler=serial-v1`. The settings
 * are checked with the start command's own schema (`ExperimentSettingsSchema`), so an arm the
 * orchestrator would refuse is refused here first, naming the setting and what it accepts.
 */
import { ArmNameSchema, ContextPolicyIdSchema, EditFormatSchema, ExperimentSettingsSchema, PromptTierSchema, SchedulerIdSchema, experimentSettingNames, type ExperimentSettings } from "@aide/contracts";

export interface EvalArm {
  name: string;
  settings: ExperimentSettings;
}

export class ArmSyntaxError extends Error {}

const accepted: Record<(typeof experimentSettingNames)[number], readonly string[]> = {
  prompt_tier: PromptTierSchema.options,
  // on: the grammar with the model service's default scope; call/reply: that scope (grammar on).
  grammar: ["on", "off", "call", "reply"],
  grammar_schema: ["on", "off"],
  context_policy: ContextPolicyIdSchema.options,
  edit_format: EditFormatSchema.options,
  scheduler: SchedulerIdSchema.options,
};

const isSetting = (key: string): key is (typeof experimentSettingNames)[number] => (experimentSettingNames as readonly string[]).includes(key);

export function parseArm(text: string): EvalArm {
  const equals = text.indexOf("=");
  const name = equals === -1 ? text : text.slice(0, equals);
  if (!ArmNameSchema.safeParse(name).success) throw new ArmSyntaxError(`--arm ${JSON.stringify(text)}: the arm's name comes first (letters, digits, '.', '_', '-'), as in --arm lean=prompt_tier=compact`);
  const settings: Record<string, unknown> = { arm: name };
  const body = equals === -1 ? "" : text.slice(equals + 1);
  for (const pair of body.split(",").map((part) => part.trim()).filter(Boolean)) {
    const [key, value, ...rest] = pair.split("=");
    if (!isSetting(key)) throw new ArmSyntaxError(`--arm ${name}: unknown setting ${JSON.stringify(key)}; the settings are ${experimentSettingNames.join(", ")}`);
    if (value === undefined || rest.length > 0 || !accepted[key].includes(value)) throw new ArmSyntaxError(`--arm ${name}: ${key} is one of ${accepted[key].join(", ")}, not ${JSON.stringify(value ?? "")}`);
    if (key in settings) throw new ArmSyntaxError(`--arm ${name}: ${key} is set twice`);
    if (key === "grammar") {
      settings.grammar = value !== "off";
      if (value === "call" || value === "reply") settings.grammar_scope = value;
    } else settings[key] = key === "grammar_schema" ? value === "on" : value;
  }
  const parsed = ExperimentSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new ArmSyntaxError(`--arm ${name}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  return { name, settings: parsed.data };
}

/** Several `--arm` flags: names must differ. */
export function parseArms(texts: readonly string[]): EvalArm[] {
  const arms = texts.map(parseArm);
  const names = arms.map((arm) => arm.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new ArmSyntaxError(`--arm ${twice} is given twice`);
  return arms;
}
