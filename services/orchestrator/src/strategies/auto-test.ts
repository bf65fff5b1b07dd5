import type { RunContext } from "../run/run-context.js";
import type { BatchCall } from "../session/session-record.js";
import { knownTestCommand, resolveTestCommand } from "./resolve-test-command.js";
import type { RunAddedCall, Strategy } from "./strategy.js";

const editTools = new Set(["write_file", "replace_in_file", "apply_patch"]);
const commandTools = new Set(["run_command", "process_start"]);

/** The index of the batch's last edit that changed a file, or -1. */
function lastAppliedEdit(batch: BatchCall[]): number {
  for (let index = batch.length - 1; index >= 0; index -= 1) {
    const call = batch[index];
    if (editTools.has(call.name) && call.outcome?.is_error === false && call.outcome.changed_paths.length > 0) return index;
  }
  return -1;
}

/**
 * The auto_test strategy (issue 28, after Aider's `--auto-test`): when the batch applied an edit
 * and the model did not run a command after it, aide adds one `run_command` of the project's test
 * command to the batch. It goes through the same gate as any command (an allow rule or the
 * person's auto-approve runs it; otherwise the person is asked; never bypassed), its result reaches
 * the model with the batch's other results, and it counts as evidence like any call.
 * Returns a notice for the model when no test command was found (once per run).
 */
export async function autoTestStep(context: RunContext, runAddedCall: RunAddedCall): Promise<string[]> {
  if (context.depth > 0 || context.outcome) return [];
  const batch = context.state.batch;
  const edit = lastAppliedEdit(batch);
  if (edit === -1 || batch.slice(edit + 1).some((call) => commandTools.has(call.name))) return [];
  const alreadyKnown = knownTestCommand(context) !== undefined;
  const test = await resolveTestCommand(context);
  if (test === undefined) return alreadyKnown ? [] : ["auto_test: aide found no test command in this workspace (see its root files); run the tests yourself if there are any."];
  const call: BatchCall = { id: `auto-test-${context.seams.generateId()}`, name: "run_command", arguments: { command: test.command }, status: "queued", network: false };
  batch.push(call);
  await context.persist();
  const outcome = await runAddedCall(context, call, true);
  outcome.notices.push(`auto_test: aide ran the project's test command (${test.command}, from ${test.because}) after your edit`);
  return [];
}

export const autoTest: Strategy = { setting: "auto_test", afterBatch: autoTestStep };
