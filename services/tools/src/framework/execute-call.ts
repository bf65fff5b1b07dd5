import { aideError, type ToolExecRequest, type ToolResult } from "@aide/contracts";
import type { CallDependencies } from "./call-dependencies.js";
import { isModelFacing, prepareCall } from "./prepare-call.js";
import { applyFilePlan, checkExpectedDigests } from "./apply-file-plan.js";
import { capText } from "./cap-output.js";
import { renderForModel } from "../files/invisible-characters.js";
import type { ToolOutcome } from "./tool-types.js";
import { describeFileSystemError, isDiskFull, isFileSystemError } from "./file-system-errors.js";

const defaultMaxOutputChars = 30_000;

/**
 * One `agent.tools.exec`: an ordinary failure is a result with is_error; a request that cannot be
 * served (unknown workspace, stale approval, no sandbox) throws an AideError for an error reply.
 */
export async function executeCall(dependencies: CallDependencies, request: ToolExecRequest, serviceSignal: AbortSignal): Promise<ToolResult> {
  const started = dependencies.now();
  const base = { call_id: request.call.id, name: request.call.name };
  const prepared = await prepareCall(dependencies, request, serviceSignal);
  if (!prepared.ok) {
    return {
      ...base,
      is_error: true,
      output: renderForModel(prepared.output).text,
      metadata: { error_code: prepared.errorCode },
      notices: prepared.notices,
      changed_paths: [],
      duration_ms: dependencies.now() - started,
    };
  }
  const { tool, args, context } = prepared;
  let outcome: ToolOutcome;
  const run = async (): Promise<ToolOutcome> => {
    if (tool.plan !== undefined) {
      const plan = await tool.plan(args, context);
      if (!plan.ok) return { isError: true, output: plan.error, metadata: plan.metadata };
      checkExpectedDigests(plan.changes, request.expected_digests);
      const applied = await applyFilePlan(plan.changes, plan.summary, context, dependencies.lint);
      const feedback = applied.isError === true ? null : await dependencies.diagnoseEdit?.(plan.changes, context).catch(() => null);
      const diagnosed = feedback == null ? applied : { ...applied, output: `${applied.output}\n${feedback.note}`, metadata: { ...(applied.metadata ?? {}), diagnostics: feedback.metadata } };
      return { ...diagnosed, metadata: { ...(plan.metadata ?? {}), ...(diagnosed.metadata ?? {}) } };
    }
    if (tool.execute !== undefined) return tool.execute(args, context);
    throw aideError("INTERNAL", { detail: `tool ${tool.name} has neither plan nor execute` });
  };
  // A tool that ignores its signal still cannot hold the call past the deadline.
  const deadline = new Promise<ToolOutcome>((resolve) => {
    const stop = () => resolve({ isError: true, output: `${tool.name} did not finish in time and was stopped.`, metadata: { error_code: "TIMEOUT", timed_out: true } });
    if (context.signal.aborted) stop();
    else context.signal.addEventListener("abort", stop, { once: true });
  });
  try {
    outcome = await Promise.race([run(), deadline]);
  } catch (error) {
    if (isFileSystemError(error)) {
      const errorCode = isDiskFull(error) ? "DISK_FULL" : "TOOL_FAILED";
      outcome = {
        isError: true,
        output: `${tool.name} failed: ${describeFileSystemError(error, context.workspace.root)}`,
        metadata: { error_code: errorCode, errno: error.code, ...(errorCode === "DISK_FULL" ? { disk_area: "workspace" } : {}) },
      };
    } else if (!isModelFacing(error)) throw error;
    else outcome = { isError: true, output: error.message, metadata: { error_code: error.code } };
  } finally {
    prepared.dispose();
  }
  if (outcome.changedPaths !== undefined) dependencies.code?.noteChanged(context.workspace.root, outcome.changedPaths);
  // The one place every tool's output leaves the service: control bytes and invisible characters
  // become visible tokens here, so no tool can hand a terminal sequence to the model or a screen.
  const rendered = renderForModel(outcome.output);
  const capped = capText(rendered.text, tool.maxOutputChars ?? defaultMaxOutputChars);
  const escaped = Object.keys(rendered.escaped).length > 0 ? { escaped_characters: rendered.escaped } : {};
  const metadata = { ...(outcome.metadata ?? {}), ...escaped, ...(capped.truncated ? { output_truncated: true } : {}) };
  return {
    ...base,
    is_error: outcome.isError ?? false,
    output: capped.text.length > 0 ? capped.text : "The tool ran successfully and produced no output.",
    metadata,
    notices: prepared.notices,
    changed_paths: outcome.changedPaths ?? [],
    duration_ms: Math.max(0, dependencies.now() - started),
  };
}
