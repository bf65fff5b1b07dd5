import type { RunContext } from "../run/run-context.js";
import type { BatchCall } from "../session/session-record.js";
import { runAddedCall } from "../turn/execute-tool-calls.js";
import { resolveTestCommand } from "./resolve-test-command.js";

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
export async function autoTestStep(context: RunContext): Promise<string[]> {
  if (context.session.record.experiment?.auto_test !== true || context.depth > 0 || context.outcome) return [];
  const batch = context.state.batch;
  const edit = lastAppliedEdit(batch);
  if (edit === -1 || batch.slice(edit + 1).some((call) => commandTools.has(call.name))) return [];
  const alreadyKnown = context.testCommand !== undefined;
  const test = await resolveTestCommand(context);
  if (test === undefined) return alreadyKnown ? [] : ["auto_test: aide found no test command in this workspace (see its root files); run the tests yourself if there are any."];
  const call: BatchCall = { id: `auto-test-${context.seams.generateId()}`, name: "run_command", arguments: { command: test.command }, status: "queued", network: false };
  batch.push(call);
  await context.persist();
  const outcome = await runAddedCall(context, call, true);
  outcome.notices.push(`auto_test: aide ran the project's test command (${test.command}, from ${test.because}) after your edit`);
  return [];
}

/**
 * The auto_lint strategy: the new problems an edit introduced (the tools service's diagnostics of
 * the edited files, in the edit's metadata) restated as an instruction of their own after the
 * batch's results, so a small model does not overlook them at the end of a long edit result.
 */
export function autoLintNotices(context: RunContext): string[] {
  if (context.session.record.experiment?.auto_lint !== true) return [];
  const notices: string[] = [];
  for (const call of context.state.batch) {
    const diagnostics = call.outcome?.metadata["diagnostics"];
    if (call.outcome?.is_error !== false || diagnostics === null || typeof diagnostics !== "object") continue;
    const { new_problems: count, problems, source } = diagnostics as { new_problems?: unknown; problems?: unknown; source?: unknown };
    if (typeof count !== "number" || count === 0 || !Array.isArray(problems)) continue;
    const lines = problems.slice(0, 10).map((problem) => {
      const { path, line, column, code, message } = problem as Record<string, unknown>;
      return `  ${String(path)}:${String(line)}:${String(column)} ${String(code)} ${String(message)}`;
    });
    notices.push(`auto_lint: your ${call.name} introduced ${count} new problem${count === 1 ? "" : "s"} (${String(source)}); fix ${count === 1 ? "it" : "them"} next:\n${lines.join("\n")}`);
  }
  return notices;
}
