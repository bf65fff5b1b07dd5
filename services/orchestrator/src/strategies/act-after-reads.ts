import type { RunContext } from "../run/run-context.js";
import type { Strategy } from "./strategy.js";
import { MUTATION_TOOLS } from "../evidence/event-facts.js";
import { OBSERVING } from "./explore-first.js";

/** Successful reads that show no file's text (list_dir, search_files, …) since the last applied change after which read_file is the one call left. */
const MOST_LOOKS = 2;
/** What the change stage keeps besides the changing tools. */
const FINISHING = ["attempt_completion"];

/**
 * The act_after_reads strategy (issue 28; off unless the start sets it): a funnel from looking to
 * reading to changing, counted since the run's last applied change (or its start). After two
 * successful reads that show no file's text (list_dir, search_files, list_code_definitions,
 * code_map), the local model's grammar offers read_file alone; once a read_file succeeded, it
 * offers only the tools that change files and attempt_completion (which completion_grammar may
 * still leave out), until a change is applied. The prompt still lists every tool. Measured before
 * it: with explore_first and the folders in the path grammar, Gemma 3 270M and SmolLM2-135M spent
 * all 8 iterations of every attempt reading (496 of 496 calls reads, not one edit), most of them
 * the same list_dir or search_files three times; with only the reads left out they wrote commands
 * such as `#  ` and `1.` instead, every one refused. Like explore_first it refuses nothing: a call
 * the grammar leaves out cannot be spelled. A stage whose tools are not offered leaves nothing out.
 * With follow_imports, `importsToRead` (files a read file imports, not read yet) keeps read_file
 * alone after a read too.
 */
export function actAfterReadsExcluded(context: RunContext, offered: readonly string[], importsToRead: readonly string[] = []): string[] {
  let looks = 0;
  let read = false;
  for (let index = context.state.tool_log.length - 1; index >= 0 && !read; index -= 1) {
    const entry = context.state.tool_log[index];
    if (entry.is_error) continue;
    // An applied change (a file tool with changed paths) starts the count again.
    if (MUTATION_TOOLS.has(entry.tool) && entry.changed_paths.length > 0) break;
    if (entry.tool === "read_file") read = true;
    else if (OBSERVING.includes(entry.tool)) looks += 1;
  }
  // follow_imports: a file read imports one this run has not read; read_file alone until it is read.
  const keep = read && importsToRead.length > 0 ? ["read_file"] : read ? [...MUTATION_TOOLS, ...FINISHING] : looks >= MOST_LOOKS ? ["read_file"] : undefined;
  if (keep === undefined) return [];
  const left = offered.filter((name) => !keep.includes(name));
  // Only when the stage has a tool of its own to offer (beyond the completion).
  return offered.some((name) => keep.includes(name) && !FINISHING.includes(name)) ? left : [];
}

export const actAfterReads: Strategy = {
  setting: "act_after_reads",
  grammar(context, shaping) {
    shaping.excluded.push(...actAfterReadsExcluded(context, shaping.offered, shaping.importsToRead));
  },
};
