import { existsSync, readFileSync } from "node:fs";
import { EditFormatSchema, type EditFormat } from "@aide/contracts";
import { registryPath } from "@aide/model";
import { addModelEntry } from "./models-file.js";

/**
 * `aide models edit-format <id> <format>`: the edit format a run with this model uses when its
 * start sets none (chosen from eval results, e.g. the arm whose edit format passed most
 * often on this model in `aide eval report`). Written into the model's models.json entry
 * (`editFormat`), validated as the model service validates it; `default` removes the choice.
 * Only configured entries: a discovered model is added with `aide models add` first.
 */
export function setEditFormat(id: string, format: string, env: NodeJS.ProcessEnv = process.env): number {
  const choices = [...EditFormatSchema.options, "default"];
  if (!choices.includes(format)) {
    process.stderr.write(`aide models edit-format: the format is one of ${choices.join(", ")}, not ${JSON.stringify(format)}\n`);
    return 2;
  }
  const path = registryPath(env);
  const document = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { models?: Array<Record<string, unknown>> }) : { models: [] };
  const entry = document.models?.find((model) => model["id"] === id);
  if (entry === undefined) {
    process.stderr.write(`aide models edit-format: ${id} is not an entry of ${path} (a discovered model is added with \`aide models add ${id} ...\` first)\n`);
    return 1;
  }
  const { editFormat: _previous, ...rest } = entry;
  const next = format === "default" ? rest : { ...rest, editFormat: format as EditFormat };
  try {
    addModelEntry(path, next, false);
  } catch (error) {
    process.stderr.write(`aide models edit-format: ${(error as Error).message}\n`);
    return 1;
  }
  process.stdout.write(
    format === "default" ? `${id}: the router chooses the edit tools again (${path})\n` : `${id}: runs without an edit_format setting now use ${format} (${path}); a running stack reloads it\n`,
  );
  return 0;
}
