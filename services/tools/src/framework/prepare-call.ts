import { AideError, type ToolCall } from "@aide/contracts";
import type { CallDependencies } from "./call-dependencies.js";
import { normalizeArguments } from "./normalize-arguments.js";
import type { AnyTool, ToolContext } from "./tool-types.js";
import { openWorkspace } from "../jail/workspace.js";

export type PreparedCall =
  | { ok: true; tool: AnyTool; args: Record<string, unknown>; notices: string[]; context: ToolContext; dispose(): void }
  | { ok: false; output: string; notices: string[]; errorCode: string };

/** Codes that describe the model's mistake: reported as an is_error result, not an error reply. */
export const modelFacingCodes = new Set(["PATH_OUTSIDE_WORKSPACE", "PATH_DENIED", "PATH_INVALID", "FILE_NOT_FOUND", "TOOL_NOT_FOUND", "VALIDATION", "TIMEOUT"]);

export function isModelFacing(error: unknown): error is AideError {
  return error instanceof AideError && modelFacingCodes.has(error.code);
}

const defaultTimeoutMs = 30_000;

/**
 * Looks the tool up, opens the workspace (request-level errors throw), normalizes the arguments
 * (model-level errors come back as data), and builds the context with a per-call deadline.
 */
export async function prepareCall(
  dependencies: CallDependencies,
  request: { session: string; workspace: string; call: ToolCall; network?: boolean; timeout_ms?: number },
  serviceSignal: AbortSignal,
): Promise<PreparedCall> {
  const tool = dependencies.registry.find(request.call.name);
  if (tool === undefined) {
    const names = dependencies.registry.tools.map((t) => t.name).join(", ");
    return { ok: false, notices: [], errorCode: "TOOL_NOT_FOUND", output: `There is no tool named \`${request.call.name}\`. Available tools: ${names}.` };
  }
  const workspace = await openWorkspace(request.workspace, dependencies.workspaceRoots);
  const normalized = normalizeArguments(tool, request.call.arguments);
  if (!normalized.ok) return { ok: false, notices: normalized.notices, errorCode: "VALIDATION", output: normalized.error };
  const timeoutMs = request.timeout_ms ?? tool.timeoutMs ?? defaultTimeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), timeoutMs + 5_000);
  timer.unref();
  const onServiceAbort = () => controller.abort(new Error("service stopping"));
  serviceSignal.addEventListener("abort", onServiceAbort, { once: true });
  const context: ToolContext = {
    session: request.session,
    workspace,
    signal: controller.signal,
    log: dependencies.logger.child({ tool: tool.name, call: request.call.id, session: request.session }),
    network: request.network ?? false,
    timeoutMs: request.timeout_ms,
    sandbox: dependencies.sandbox,
    processes: dependencies.processes,
  };
  return {
    ok: true,
    tool,
    args: normalized.args,
    notices: normalized.notices,
    context,
    dispose() {
      clearTimeout(timer);
      serviceSignal.removeEventListener("abort", onServiceAbort);
    },
  };
}
