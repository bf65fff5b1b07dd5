import { loggedOutputChars } from "../evidence/index.js";
import type { RunContext } from "../run/run-context.js";
import { stringArgs } from "../run/run-policies.js";
import type { BatchCall, CallOutcome, ToolLogEntry } from "../session/session-record.js";

/** The durable tool log keeps what evidence needs and stays small (`loggedOutputChars`). */
const logLimit = loggedOutputChars;

/**
 * Step 8: every finished call goes into the evidence ledger, the retry guards and the durable
 * tool log (from which both are rebuilt after a restart).
 */
export function recordEvidence(context: RunContext, call: BatchCall, outcome: CallOutcome): void {
  const entry: ToolLogEntry = {
    seq: context.state.tool_log.length + 1,
    tool: call.name,
    is_error: outcome.is_error,
    args: call.arguments,
    metadata: outcome.metadata,
    output: outcome.output.length > logLimit(call.name) ? outcome.output.slice(-logLimit(call.name)) : outcome.output,
    changed_paths: outcome.changed_paths,
  };
  context.state.tool_log.push(entry);
  // The ledger also gets the whole output: an answer may quote a line the log's copy cut off.
  context.policies.ledger.record(entry, outcome.output);
  // Only a call that actually ran says anything about its content: a refusal (plan mode, a person's
  // rejection, an interruption) must not block the same write later.
  const ran = !["refused", "denied", "interrupted"].some((key) => outcome.metadata[key] !== undefined);
  if (ran) context.policies.guards.record({ name: call.name, arguments: stringArgs(call.arguments) }, { is_error: outcome.is_error, changed_paths: outcome.changed_paths, output: outcome.output });
  for (const path of outcome.changed_paths) {
    if (!context.state.files_changed.includes(path)) context.state.files_changed.push(path);
  }
}
