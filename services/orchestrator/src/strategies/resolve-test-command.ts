import type { ToolResult } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import { detectTestCommand, inspectedRootFiles, type DetectedTestCommand } from "./detect-test-command.js";

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
  if (context.testCommand !== undefined) return context.testCommand ?? undefined;
  const told = context.session.record.experiment?.test_command;
  if (told !== undefined) return (context.testCommand = { command: told, because: "the start's test_command" });
  const listing = await readOnlyCall(context, "list_dir", { path: "." });
  const entries = listing === undefined ? [] : listing.output.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("("));
  const files: Record<string, string> = {};
  for (const name of inspectedRootFiles) {
    if (!entries.includes(name)) continue;
    const read = await readOnlyCall(context, "read_file", { path: name, limit: 2000 });
    if (read !== undefined) files[name] = fileTextOf(read.output);
  }
  const detected = detectTestCommand({ entries, files });
  context.testCommand = detected ?? null;
  return detected;
}
