import type { RunContext } from "../run/run-context.js";
import { OBSERVING } from "./explore-first.js";

/** Successful reads of any kind since the last applied change after which the reading tools leave the grammar. */
const MOST_READS = 3;
/** Tools that change files (an applied one, with changed paths, starts the count again). */
const CHANGING = ["write_file", "replace_in_file", "apply_patch"];

/**
 * The act_after_reads strategy (issue 28; off unless the start sets it): once the run has read a
 * file's text (a successful read_file), or made three successful reads of any kind, since its last
 * applied change, the local model's grammar leaves the reading tools out until a change is applied
 * (the prompt still lists them all). Measured before it: with explore_first and the folders in
 * the path grammar, Gemma 3 270M and SmolLM2-135M spent all 8 iterations of every attempt
 * reading (496 of 496 calls reads, not one edit). Like explore_first this refuses nothing: a read
 * the grammar leaves out cannot be spelled, and a change, or a failed one followed by nothing
 * else, does not lock the model out of any tool but the reads. When no tool but the reads is
 * offered, nothing is left out.
 */
export function actAfterReadsExcluded(context: RunContext, offered: readonly string[]): string[] {
  if (context.session.record.experiment?.act_after_reads !== true) return [];
  const reading = offered.filter((name) => OBSERVING.includes(name));
  if (reading.length === 0 || reading.length === offered.length) return [];
  let reads = 0;
  let readText = false;
  for (let index = context.state.tool_log.length - 1; index >= 0; index -= 1) {
    const entry = context.state.tool_log[index];
    if (entry.is_error) continue;
    if (CHANGING.includes(entry.tool) && entry.changed_paths.length > 0) break;
    if (!OBSERVING.includes(entry.tool)) continue;
    reads += 1;
    if (entry.tool === "read_file") readText = true;
  }
  return readText || reads >= MOST_READS ? reading : [];
}
