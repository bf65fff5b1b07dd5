import type { ModelChatRequest } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import type { Strategy } from "./strategy.js";

/** The tool whose path and SEARCH text the grammar spells. */
const TOOL = "replace_in_file";
/** The most files (the latest read first) and lines per file the grammar spells. */
const MOST_FILES = 8;
const MOST_LINES = 400;
/** A numbered line of read_file's output: the number, a tab, the text. */
const NUMBERED = /^ *(\d+)\t(.*)$/;

/**
 * The search_grammar strategy (issue 28; off unless the start sets it): the local model's grammar
 * spells replace_in_file's `path` and `search` together, as one of the files this run read (or
 * changed) and one of that file's current lines, found once in it, with the search/replace form
 * only. Measured before it: SmolLM2-135M's replace_in_file calls under path_grammar named real
 * files, and every one was refused `EDIT_NOT_FOUND` (its SEARCH text was not in the file), so no
 * change was ever applied. The files are read again before each request (read_file, no event: like
 * path_grammar's listing, it is the request's own input), so a line is one the file holds now; the
 * tools service still checks and applies the edit as any other.
 */
export async function grammarEdits(context: RunContext, offered: readonly string[]): Promise<ModelChatRequest["grammar_edits"]> {
  if (!offered.includes(TOOL)) return undefined;
  const paths: string[] = [];
  for (let index = context.state.tool_log.length - 1; index >= 0 && paths.length < MOST_FILES; index -= 1) {
    const entry = context.state.tool_log[index];
    const named = entry.tool === "read_file" && !entry.is_error ? (entry.metadata.path ?? entry.args.path) : undefined;
    if (typeof named === "string" && !paths.includes(named)) paths.push(named);
  }
  for (const changed of context.state.files_changed) if (paths.length < MOST_FILES && !paths.includes(changed)) paths.push(changed);
  const files: { path: string; lines: string[] }[] = [];
  for (const path of paths) {
    const lines = await onceLines(context, path);
    if (lines.length > 0) files.push({ path, lines });
  }
  return files.length === 0 ? undefined : { tool: TOOL, files };
}

/**
 * Under search_grammar, replace_in_file is out of the grammar while no file it could spell was
 * found (none read or changed yet, or none with a line to spell): a SEARCH text the model has not
 * seen is what failed (measured: SmolLM2's and Gemma's edits before any read, every one
 * `EDIT_NOT_FOUND`). The tool stays in the prompt.
 */
export function searchGrammarExcluded(offered: readonly string[], edits: ModelChatRequest["grammar_edits"]): string[] {
  return offered.includes(TOOL) && edits === undefined ? [TOOL] : [];
}

export const searchGrammar: Strategy = {
  setting: "search_grammar",
  async grammar(context, shaping) {
    shaping.edits = await grammarEdits(context, shaping.offered);
    shaping.excluded.push(...searchGrammarExcluded(shaping.offered, shaping.edits));
  },
};

/** The file's lines that occur once in it (trailing whitespace and indent aside) and hold more than whitespace, or none when it cannot be read whole. */
async function onceLines(context: RunContext, path: string): Promise<string[]> {
  const record = context.session.record;
  try {
    const result = await context.seams.tools.exec(record.id, record.workspace, { id: context.seams.generateId(), name: "read_file", arguments: { path, limit: MOST_LINES } }, { network: false });
    if (result.is_error || result.metadata.binary === true) return [];
    // A line once in the part shown may be there again further on: only a file shown whole counts.
    if (typeof result.metadata.total_lines === "number" && result.metadata.total_lines > MOST_LINES) return [];
    // Lines shown cut or with invisible characters escaped are not the file's text.
    const flagged = new Set(Array.isArray(result.metadata.invisible) ? result.metadata.invisible.map((flag) => (flag as { line?: unknown }).line) : []);
    const [body, notes = ""] = splitNotes(result.output);
    if (/is shown from character|characters? (are|is) cut|cut at/i.test(notes)) return [];
    const lines: { number: number; text: string }[] = [];
    for (const line of body.split("\n")) {
      const match = NUMBERED.exec(line);
      if (match !== null) lines.push({ number: Number(match[1]), text: match[2] });
    }
    const counts = new Map<string, number>();
    for (const line of lines) counts.set(line.text.trim(), (counts.get(line.text.trim()) ?? 0) + 1);
    return lines.filter((line) => line.text.trim() !== "" && counts.get(line.text.trim()) === 1 && !flagged.has(line.number)).map((line) => line.text);
  } catch (error) {
    context.logger.warn({ err: error }, "reading a file for search_grammar failed; its lines are left out");
    return [];
  }
}

/** read_file's numbered lines and the notes after them (a blank line, then a parenthesised note). */
function splitNotes(output: string): [string, string] {
  const at = output.lastIndexOf("\n\n(");
  return at < 0 || !output.endsWith(")") ? [output, ""] : [output.slice(0, at), output.slice(at + 2)];
}
