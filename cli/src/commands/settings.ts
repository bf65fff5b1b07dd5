import { armValuesOf, modelSettingsOf, plainRunValueOf, settingNames, settingTable, type ModelInfo, type SettingName } from "@aide/contracts";
import { reportError, requireStack } from "../client/require-stack.js";

/**
 * `aide settings [--model ID]`: what a plain run does, setting by setting (the value it runs with
 * when the start sets nothing, or what decides it), and what each setting changes. Everything comes
 * from the contracts' setting table; docs/settings.md is the same table as markdown
 * (`settingsMarkdown`). With `--model`, first the model's own settings (`modelSettingsOf`, from the
 * running stack's model list: its registry entry and probe profile).
 */
export async function run(options: { json?: boolean; model?: string }): Promise<number> {
  let model: ModelInfo | undefined;
  if (options.model !== undefined) {
    const client = requireStack();
    if (!client) return 1;
    try {
      const list = await client.models();
      const id = options.model === "default" ? list.default : options.model;
      model = list.models.find((entry) => entry.id === id);
      if (model === undefined) {
        process.stderr.write(`aide settings: no model ${JSON.stringify(options.model)}; the models are ${list.models.map((entry) => entry.id).join(", ") || "(none)"}\n`);
        return 2;
      }
    } catch (error) {
      return reportError(error);
    }
  }
  if (options.json) {
    const rows = settingNames.map((name) => ({ name, values: armValuesOf(name) ?? "text", plain_run: plainRunValueOf(name), description: settingTable[name].description, ...requiresOf(name) }));
    process.stdout.write(`${JSON.stringify(model === undefined ? rows : { model: { id: model.id, ...modelSettingsOf(modelFactsOf(model)) }, settings: rows }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write((model === undefined ? "" : modelSettingsText(model)) + settingsText());
  return 0;
}

/** What the model list says of a model, as the orchestrator reads it. */
const modelFactsOf = (info: ModelInfo) => ({
  ...(info.profile !== undefined ? { profile: info.profile } : {}),
  listedTokens: info.context_budget,
  provider: info.provider,
  ...(info.edit_format !== undefined ? { editFormat: info.edit_format } : {}),
  nativeTools: info.native_tools,
  ...(info.source !== undefined ? { origin: info.source } : {}),
});

const sourceText = { probe: "its probe profile", registry: "its registry entry", window: "its window", default: "the default" } as const;

/** The model's own settings, each with where it came from (a start's settings win over them). */
export function modelSettingsText(info: ModelInfo): string {
  const settings = modelSettingsOf(modelFactsOf(info));
  const grammar = settings.grammar.value === undefined ? "the model service's default (on for a local model unless its entry says off)" : settings.grammar.value ? "on" : "off";
  return [
    `Model ${info.id} (${info.provider}): its own settings; a start's settings below win over them.`,
    ...(settings.windowTokens !== undefined ? [`  window = ${settings.windowTokens} tokens`] : []),
    `  prompt_tier = ${settings.prompt_tier.value} (${sourceText[settings.prompt_tier.source]})`,
    `  grammar = ${grammar} (${sourceText[settings.grammar.source]})`,
    `  edit_format = ${settings.edit_format.value} (${sourceText[settings.edit_format.source]})`,
    `  tool_calls = ${settings.tool_calls.value} (${sourceText[settings.tool_calls.source]})`,
    "",
    "",
  ].join("\n");
}

const valuesText = (name: SettingName) => armValuesOf(name)?.join("|") ?? "text";
const requiresOf = (name: SettingName): { requires?: readonly string[] } => (settingTable[name].requires === undefined ? {} : { requires: settingTable[name].requires });

/** The terminal's view: one block per setting. */
export function settingsText(): string {
  const lines = ["What a plain run does (aide run --setting KEY=VALUE, aide eval run --arm NAME=KEY=VALUE,... change it):", ""];
  for (const name of settingNames) {
    const needs = settingTable[name].requires;
    lines.push(`${name} = ${plainRunValueOf(name)}`, `  values: ${valuesText(name)}${needs === undefined ? "" : `; acts only with ${needs.join(", ")}`}`, `  ${settingTable[name].description}`, "");
  }
  return lines.join("\n");
}

/** docs/settings.md: the table, generated (a test holds the checked-in page to it). */
export function settingsMarkdown(): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  const rows = settingNames.map((name) => {
    const needs = settingTable[name].requires;
    const description = needs === undefined ? settingTable[name].description : `${settingTable[name].description} (acts only with ${needs.map((other) => `\`${other}\``).join(", ")})`;
    return `| \`${name}\` | ${cell(valuesText(name))} | ${cell(plainRunValueOf(name))} | ${cell(description)} |`;
  });
  return [
    "# Experiment settings",
    "",
    "<!-- Generated from contracts/src/setting-table.ts by cli/src/commands/settings.ts; regenerate: AIDE_UPDATE_DOCS=1 npx vitest run cli/src/commands/settings.test.ts -->",
    "",
    "Each setting overrides one decision the orchestrator otherwise makes itself. Set them per run with",
    "`aide run --setting KEY=VALUE` (repeatable), per eval arm with `aide eval run --arm NAME=KEY=VALUE,KEY=VALUE`,",
    "or in the start command's `experiment` object. `aide settings` prints this table. `run.created` records",
    "each run's settings (`payload.experiment`), so an evaluation tells its arms apart from the events alone.",
    "",
    "A new strategy is one entry of the table (`contracts/src/setting-table.ts`: name, values, default,",
    "description, how `run.created` records it, the settings it acts only with), one module under",
    "`services/orchestrator/src/strategies/` exporting a `Strategy` with the hooks it uses, and its line in",
    "`strategy-registry.ts`; the schemas, the CLI, the API document and this page follow from the table, and",
    "tests fail while they disagree.",
    "",
    "| setting | values | a plain run | what it does |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
