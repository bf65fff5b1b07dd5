import { armValuesOf, plainRunValueOf, settingNames, settingTable, type SettingName } from "@aide/contracts";

/**
 * `aide settings`: what a plain run does, setting by setting (the value it runs with when the start
 * sets nothing, or what decides it), and what each setting changes. Everything comes from the
 * contracts' setting table; docs/settings.md is the same table as markdown (`settingsMarkdown`).
 */
export function run(options: { json?: boolean }): number {
  if (options.json) {
    const rows = settingNames.map((name) => ({ name, values: armValuesOf(name) ?? "text", plain_run: plainRunValueOf(name), description: settingTable[name].description, ...requiresOf(name) }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(settingsText());
  return 0;
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
    "| setting | values | a plain run | what it does |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
