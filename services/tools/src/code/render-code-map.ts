import type { CodeDefinition, FileTags } from "./code-definition.js";
import type { RankedFile } from "./rank-files.js";

/** About four characters a token, as the model service estimates without a tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const maxDefinitionsPerFile = 12;

export interface RenderedMap {
  text: string;
  files: string[];
  tokens: number;
  /** Ranked files with definitions that did not fit. */
  omittedFiles: number;
}

function keyDefinitions(tags: FileTags, ranked: RankedFile): CodeDefinition[] {
  const importance = (definition: CodeDefinition) => ranked.referencedBy.get(definition.name) ?? 0;
  const chosen = [...tags.definitions].sort((left, right) => importance(right) - importance(left) || left.startLine - right.startLine).slice(0, maxDefinitionsPerFile);
  return chosen.sort((left, right) => left.startLine - right.startLine);
}

/**
 * Files in rank order, each with its most referenced definitions (`line: signature`), as many as
 * fit `budgetTokens`; a file goes in whole or not at all, and the map stops at the first that
 * does not fit.
 */
export function renderCodeMap(ranked: readonly RankedFile[], files: ReadonlyMap<string, FileTags>, budgetTokens: number): RenderedMap {
  const blocks: string[] = [];
  const shown: string[] = [];
  let used = 0;
  let omitted = 0;
  for (const file of ranked) {
    const tags = files.get(file.path);
    if (tags === undefined || tags.definitions.length === 0) continue;
    if (omitted > 0) {
      omitted += 1;
      continue;
    }
    const block = [file.path, ...keyDefinitions(tags, file).map((definition) => `  ${definition.startLine}: ${definition.signature}`)].join("\n");
    const cost = estimateTokens(`${block}\n`);
    if (used + cost > budgetTokens) {
      omitted += 1;
      continue;
    }
    blocks.push(block);
    shown.push(file.path);
    used += cost;
  }
  const text = blocks.join("\n");
  return { text, files: shown, tokens: estimateTokens(text), omittedFiles: omitted };
}
