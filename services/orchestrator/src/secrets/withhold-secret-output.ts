import type { CallOutcome } from "../session/session-record.js";
import { secretPathRule } from "./secret-paths.js";

/** Said with every successful search, whether or not anything was left out, so its presence tells nothing. */
export const searchNote = "(Secret-looking files such as .env, keys and credentials are left out of search results; read_file one to ask the person.)";

const header = /^(\d+) match(?:es)? in (\d+) files?(.*):$/;
const entry = /^(.*) \((\d+)\)$/;

/**
 * search_files lists files with match counts; for a secret file even a count answers "does the
 * key start with sk-a?", so secret-looking files are dropped from the list and the totals are
 * recomputed from what stays. The constant note goes on every successful search.
 */
export function withholdSecretSearchHits(outcome: CallOutcome): CallOutcome {
  if (outcome.is_error) return outcome;
  const lines = outcome.output.split("\n");
  const head = header.exec(lines[0] ?? "");
  if (!head) return { ...outcome, output: `${outcome.output}\n${searchNote}` };
  const kept: string[] = [];
  let matches = 0;
  for (const line of lines.slice(1)) {
    const hit = entry.exec(line);
    if (hit && secretPathRule(hit[1])) continue;
    kept.push(line);
    if (hit) matches += Number(hit[2]);
  }
  const capped = outcome.metadata["capped"] === true;
  const metadata = { ...outcome.metadata, files: kept.length, matches };
  if (kept.length === 0) return { ...outcome, output: `No matches outside secret-looking files.\n${searchNote}`, metadata };
  const total = `${capped ? "at least " : ""}${matches} match${matches === 1 ? "" : "es"} in ${kept.length} file${kept.length === 1 ? "" : "s"}`;
  const shown = capped ? " (showing the 50 with the most; narrow the pattern or the path)" : "";
  return { ...outcome, output: `${total}${shown}:\n${kept.join("\n")}\n${searchNote}`, metadata };
}

/** git_diff prints file contents: the sections of secret-looking files are replaced by a line saying so. */
export function withholdSecretDiffSections(outcome: CallOutcome): CallOutcome {
  if (outcome.is_error || !outcome.output.includes("diff --git ")) return outcome;
  const sections = outcome.output.split(/^(?=diff --git )/m);
  let withheld = 0;
  const kept = sections.map((section) => {
    const names = /^diff --git a\/(\S+) b\/(\S+)/.exec(section);
    if (!names || !(secretPathRule(names[1]) || secretPathRule(names[2]))) return section;
    withheld += 1;
    return `diff --git a/${names[1]} b/${names[2]}\n[the changes to this secret-looking file are withheld; read_file it to ask the person]\n`;
  });
  return withheld === 0 ? outcome : { ...outcome, output: kept.join(""), metadata: { ...outcome.metadata, secret_diffs_withheld: withheld } };
}
