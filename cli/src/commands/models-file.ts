import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { ModelSpecSchema, parseRegistry, readRegistryFile, describeIssues, type ModelSpec } from "@aide/model";

/** Undefined when the registry file is absent or valid; else the CONFIG_INVALID message naming the field. */
export function checkRegistryFile(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    readRegistryFile(path);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export interface AddResult {
  path: string;
  spec: ModelSpec;
  replaced: boolean;
}

/**
 * Adds (or replaces) one entry of models.json, validated as the model service validates it: a
 * bad field is refused naming its path (`models.2.baseUrl: Invalid URL`) and nothing is written.
 * Written in place (same inode), so a running service's bind mount of the file sees it too.
 */
export function addModelEntry(path: string, entry: Record<string, unknown>, makeDefault: boolean): AddResult {
  let document: { default?: string; models: unknown[]; [key: string]: unknown } = { models: [] };
  if (existsSync(path)) {
    const problem = checkRegistryFile(path);
    if (problem) throw new Error(`${problem} (fix ${path} first; nothing was written)`);
    document = JSON.parse(readFileSync(path, "utf8"));
  }
  const index = document.models.findIndex((model) => (model as { id?: unknown }).id === entry.id);
  const position = index >= 0 ? index : document.models.length;
  const single = ModelSpecSchema.safeParse(entry);
  if (!single.success) throw new Error(`The model entry is not valid: ${describeIssues(single.error.issues.map((issue) => ({ ...issue, path: ["models", position, ...issue.path] })))}`);
  const models = [...document.models];
  models[position] = entry;
  const next = { ...document, models, ...(makeDefault ? { default: entry.id as string } : {}) };
  const registry = parseRegistry(next, path);
  writeFileSync(path, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  return { path, spec: registry.models[position], replaced: index >= 0 };
}
