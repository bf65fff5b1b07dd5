import type { ToolResult } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import { detectTestCommand, inspectedRootFiles, type DetectedTestCommand } from "./detect-test-command.js";
import { strategyState } from "./strategy-state.js";

/** The run's test command once resolved (null: none found), shared by auto_test, prefix_failing_output and few_shot. */
const slot = (context: RunContext) => strategyState<{ command?: DetectedTestCommand | null }>(context, "test-command", () => ({}));

/** The test command when it was resolved already (null: looked for, none found); undefined: not looked for yet. */
export function knownTestCommand(context: RunContext): DetectedTestCommand | null | undefined {
  return slot(context).command;
}

/** read_file's output without its line numbers and its closing note: the file's text. */
export function fileTextOf(output: string): string {
  const body = output.replace(/\n\n\([^\n]*\)$/, "");
  return body
    .split("\n")
    .map((line) => line.replace(/^\s*\d+\t/, ""))
    .join("\n");
}

async function readOnlyCall(context: RunContext, name: string, args: Record<string, unknown>): Promise<ToolResult | undefined> {
  const record = context.session.record;
  try {
    const result = await context.seams.tools.exec(record.id, record.workspace, { id: context.seams.generateId(), name, arguments: args }, { network: false });
    return result.is_error ? undefined : result;
  } catch (error) {
    context.logger.warn({ err: error, tool: name }, "looking for the test command failed; the run goes on without it");
    return undefined;
  }
}

/**
 * The run's test command, once: the one the start named (`test_command`), else the one the
 * workspace's root files give (`detectTestCommand`, read with list_dir and read_file through the
 * tools service, read-only). Undefined when none is found; must not throw.
 */
export async function resolveTestCommand(context: RunContext): Promise<DetectedTestCommand | undefined> {
  const state = slot(context);
  if (state.command !== undefined) return state.command ?? undefined;
  const told = context.session.record.experiment?.test_command;
  if (told !== undefined) return (state.command = { command: told, because: "the start's test_command" });
  const listing = await readOnlyCall(context, "list_dir", { path: "." });
  const entries =
    listing === undefined
      ? []
      : listing.output
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "" && !line.startsWith("("));
  const files: Record<string, string> = {};
  for (const name of inspectedRootFiles) {
    if (!entries.includes(name)) continue;
    const read = await readOnlyCall(context, "read_file", { path: name, limit: 2000 });
    if (read !== undefined) files[name] = fileTextOf(read.output);
  }
  const detected = detectTestCommand({ entries, files });
  state.command = detected ?? null;
  return detected;
}
