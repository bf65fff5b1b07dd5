import type { RunContext } from "../run/run-context.js";
import { OBSERVING } from "./explore-first.js";

/** Successful reads that show no file's text (list_dir, search_files, …) since the last applied change after which only read_file is left to read with. */
const MOST_LOOKS = 2;
/** Tools that change files (an applied one, with changed paths, starts the count again). */
const CHANGING = ["write_file", "replace_in_file", "apply_patch"];

/**
 * The act_after_reads strategy (issue 28; off unless the start sets it): a funnel from looking to
 * changing. Since the run's last applied change (or its start): after two successful reads that
 * show no file's text (list_dir, search_files, list_code_definitions, code_map) the only reading
 * tool left in the local model's grammar is read_file; once a read_file succeeded, no reading
 * tool is, until a change is applied. The prompt still lists every tool. Measured before it: with
 * explore_first and the folders in the path grammar, Gemma 3 270M and SmolLM2-135M spent all 8
 * iterations of every attempt reading (496 of 496 calls reads, not one edit), most of them the
 * same list_dir or search_files three times. Like explore_first it refuses nothing: a call the
 * grammar leaves out cannot be spelled. When no tool but the reads is offered, nothing is left out.
 */
export function actAfterReadsExcluded(context: RunContext, offered: readonly string[]): string[] {
  if (context.session.record.experiment?.act_after_reads !== true) return [];
  const reading = offered.filter((name) => OBSERVING.includes(name));
  if (reading.length === 0 || reading.length === offered.length) return [];
  let looks = 0;
  for (let index = context.state.tool_log.length - 1; index >= 0; index -= 1) {
    const entry = context.state.tool_log[index];
    if (entry.is_error) continue;
    if (CHANGING.includes(entry.tool) && entry.changed_paths.length > 0) break;
    if (entry.tool === "read_file") return reading;
    if (OBSERVING.includes(entry.tool)) looks += 1;
  }
  return looks >= MOST_LOOKS && reading.includes("read_file") ? reading.filter((name) => name !== "read_file") : [];
}
