import { AideError, type ToolDescriptor, type ToolPreview, type ToolResult } from "@aide/contracts";
import { decideGate, type NetworkLevel } from "../approvals/approval-policy.js";
import { redactSecrets, redactSecretsDeep } from "../events/redact-secrets.js";
import { outputPreview, sanitizeArgs, summarizeOutput } from "../events/sanitize-args.js";
import { isBareInteractive, isDataFileExecution } from "../guards/index.js";
import { classifyNetwork } from "../network/index.js";
import type { RunContext } from "../run/run-context.js";
import { stringArgs } from "../run/run-policies.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { gateSecretReadByName, reviewSecretOutput } from "../secrets/gate-secret-read.js";
import { errorOutcome, refusal } from "./call-outcomes.js";
import { requireCheckpoint } from "./require-checkpoint.js";
import { requestApproval } from "./gate-approval.js";
import { interruptedOutcome } from "./interrupted-outcome.js";
import { waitOutFullDisk } from "./wait-out-full-disk.js";
import { callMcp } from "../mcp/call-mcp.js";
import { mcpServerOf } from "../mcp/mcp-catalog.js";

const commandTools = new Set(["run_command", "process_start"]);
const automationSurface = /(^|\/)(\.git\/hooks|\.github\/workflows|\.gitlab-ci|\.husky|package\.json$|\.bashrc|\.zshrc|\.profile)/;

export { errorOutcome, refusal } from "./call-outcomes.js";

/** The protected paths a command reports it changed (the tools service's `metadata.protected_changes`). */
function protectedChangesOf(metadata: Record<string, unknown>): string[] {
  const changes = metadata["protected_changes"];
  if (!Array.isArray(changes)) return [];
  return changes.flatMap((change: unknown) => (typeof change === "object" && change !== null && typeof (change as { path?: unknown }).path === "string" ? [(change as { path: string }).path] : []));
}

function commandOf(call: BatchCall): string | undefined {
  const command = call.arguments["command"];
  return commandTools.has(call.name) && typeof command === "string" ? command : undefined;
}

/** Guards that refuse a call before anything runs (seed 002 "defensive normalization and retry guards"). */
function guardRefusal(context: RunContext, call: BatchCall): CallOutcome | undefined {
  const command = commandOf(call);
  if (command !== undefined && isBareInteractive(command)) {
    return refusal(`Refused: \`${command}\` starts an interactive program that would wait for input forever. Run a script or pass the code with -c / -e.`);
  }
  if (command !== undefined && isDataFileExecution(command)) {
    return refusal(`Refused: \`${command}\` runs a documentation or data file as a program. Run the source file instead.`);
  }
  const verdict = context.policies.guards.check({ name: call.name, arguments: stringArgs(call.arguments) });
  if (verdict.blocked) return refusal(verdict.message);
  return undefined;
}

function networkOf(call: BatchCall, preview: ToolPreview | undefined): { level: NetworkLevel; tokens: string[] } {
  const command = commandOf(call) ?? preview?.command;
  if (command === undefined) return { level: "none", tokens: [] };
  const classified = classifyNetwork(command);
  if (classified.level === "none" && preview?.network_suspected) return { level: "consent_required", tokens: ["(tools service)"] };
  return { level: classified.level, tokens: classified.tokens };
}

/**
 * Steps 5–7 for one call executed by the tools service: guards, preview, the approval gate
 * (policy by code), the checkpoint before the first mutation, the egress journal entry for a
 * network-consented command, then execution. Ordinary failures come back as error outcomes.
 */
export async function runToolCall(context: RunContext, call: BatchCall, descriptor: ToolDescriptor): Promise<CallOutcome> {
  const refused = guardRefusal(context, call);
  if (refused) return refused;
  const secret = await gateSecretReadByName(context, call);
  if (secret.kind === "stop") return secret.outcome;
  if (descriptor.read_only) return execute(context, call, { network: false });
  if (context.policies.guards.isDuplicateSuccessfulWrite({ name: call.name, arguments: stringArgs(call.arguments) })) {
    return { is_error: false, output: "Skipped: this exact write already succeeded; the file has that content.", metadata: { skipped: true }, changed_paths: [], notices: [] };
  }
  const record = context.session.record;
  const early = decideGate({ descriptor, mode: record.mode, network: "none", autoApprove: record.auto_approve, readOnlyAgent: context.readOnlyAgent });
  if (early.kind === "refuse") return refusal(early.message);
  let preview: ToolPreview;
  try {
    preview = await context.seams.tools.preview(record.id, record.workspace, { id: call.id, name: call.name, arguments: call.arguments });
  } catch (error) {
    return errorOutcome(`The call could not be previewed: ${(error as Error).message}`);
  }
  // The refusal's code (EDIT_NOT_FOUND, …) reaches tool.completed and the model's next message.
  if (preview.error) return errorOutcome(preview.error, { preview: true, ...(preview.error_code ? { error_code: preview.error_code } : {}) });
  const network = networkOf(call, preview);
  const verdict = decideGate({ descriptor, mode: record.mode, preview, network: network.level, autoApprove: record.auto_approve, readOnlyAgent: context.readOnlyAgent });
  if (verdict.kind === "refuse") return refusal(verdict.message, { network: network.level });
  const decision = await personDecision(context, call, preview, network, verdict);
  if (decision.kind === "stop") return decision.outcome;
  // The person chose the approval's other form: that command runs, and the events show it.
  if (decision.command !== undefined) call.arguments = { ...call.arguments, command: decision.command };
  call.status = "approved";
  call.network = decision.network;
  call.expected_digests = preview.file_digests;
  await context.persist();
  const checkpoint = await requireCheckpoint(context, call, preview);
  if (checkpoint.kind === "stop") return checkpoint.outcome;
  if (decision.network) {
    const journaled = await journalEgress(context, call, decision.command ?? preview.command ?? commandOf(call) ?? call.name, network.tokens);
    if (!journaled) return errorOutcome("Not run: the egress journal could not record this network use, so the command was not started.");
  }
  const outcome = await execute(context, call, { network: decision.network, expectedDigests: call.expected_digests });
  // The run's summary lists every write to an automation surface (seed 000 T7): what the tools
  // service flagged as protected, and the well-known ones by name.
  const flagged = new Set([...preview.protected.map((flag) => flag.path), ...protectedChangesOf(outcome.metadata)]);
  for (const path of outcome.changed_paths) {
    if ((flagged.has(path) || automationSurface.test(path)) && !context.state.automation_writes.includes(path)) context.state.automation_writes.push(path);
  }
  if (commandOf(call) !== undefined) context.state.counters.commands_run += 1;
  const note = decision.note + checkpoint.note;
  return note ? { ...outcome, output: outcome.output + note } : outcome;
}

/** `command`: the approval's alternative the person chose, run instead of the proposed command. */
type PersonDecision = { kind: "run"; network: boolean; note: string; command?: string } | { kind: "stop"; outcome: CallOutcome };

/** An auto-approve rule, or the person's decision (network only with their explicit consent). */
async function personDecision(
  context: RunContext,
  call: BatchCall,
  preview: ToolPreview,
  network: { level: NetworkLevel; tokens: string[] },
  verdict: Exclude<ReturnType<typeof decideGate>, { kind: "refuse" }>,
): Promise<PersonDecision> {
  if (verdict.kind !== "ask") {
    if (verdict.kind === "auto") await context.session.emit("approval.decided", { approval: `auto-${call.id}`, decision: "auto" }, context.depth, context.run);
    return { kind: "run", network: false, note: "" };
  }
  const hint = call.arguments["requires_approval"];
  const decision = await requestApproval(context, {
    call,
    preview,
    network: network.level,
    networkTokens: network.tokens,
    needsProtectedConfirmation: verdict.needsProtectedConfirmation,
    modelHint: typeof hint === "string" ? hint : undefined,
  });
  switch (decision.decision) {
    case "abort":
      context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted by the person at an approval" };
      return { kind: "stop", outcome: errorOutcome("The person aborted the run.") };
    case "timeout":
      return { kind: "stop", outcome: errorOutcome("Not run: nobody approved this call in time (default deny).", { denied: "timeout" }) };
    case "reject": {
      if (decision.source === "policy") {
        return {
          kind: "stop",
          outcome: errorOutcome(`Not run: the session's approval policy covers no such call and refuses the rest without asking (${decision.feedback ?? "deny_unmatched"}).`, {
            denied: "rejected",
            refused_by: "policy",
          }),
        };
      }
      const feedback = decision.feedback ? ` Their feedback: ${decision.feedback}` : "";
      return { kind: "stop", outcome: errorOutcome(`The person rejected this call; it was not run.${feedback}`, { denied: "rejected" }) };
    }
    case "approve": {
      const useNetwork = network.level === "consent_required" && decision.consentNetwork === true;
      const note =
        network.level === "consent_required" && !useNetwork
          ? "\n[Ran WITHOUT network: the person approved the command but did not consent to network use. If it failed for lack of network, say so; do not retry it unchanged.]"
          : "";
      const alternative = decision.alternative !== undefined ? preview.alternative : undefined;
      if (alternative !== undefined) {
        const ran = `\n[The person approved this install as \`${alternative.command}\`, which ran instead: no lifecycle script ran (the project's and the packages'). If something needs its build step, say so; do not run the scripts another way.]`;
        return { kind: "run", network: useNetwork, note: ran + note, command: alternative.command };
      }
      return { kind: "run", network: useNetwork, note };
    }
    default: {
      const never: never = decision.decision;
      throw new Error(`unknown decision ${String(never)}`);
    }
  }
}

/** The egress-journal entry, acknowledged by the stream BEFORE the command may run (seed 000 T10). */
export async function journalEgress(context: RunContext, call: BatchCall, command: string, tokens: string[]): Promise<boolean> {
  const record = context.session.record;
  try {
    await context.seams.egress.append({
      session: record.id,
      run: context.run,
      call_id: call.id,
      approval: call.approval ?? call.id,
      command,
      tokens,
      consented_at: context.seams.now().toISOString(),
      user: record.user,
    });
    return true;
  } catch (error) {
    context.logger.error({ err: error }, "egress journal append failed; the command is not run");
    return false;
  }
}

/** Runs the call on the tools service with `tool.started` / `tool.completed` around it. */
export async function execute(context: RunContext, call: BatchCall, options: { network: boolean; expectedDigests?: Record<string, string> }): Promise<CallOutcome> {
  const { seams, session } = context;
  call.status = "executing";
  // A mutation's in-flight status is durable first: after a crash it is reported as interrupted, never re-run.
  if (descriptorIsMutating(call, context)) await context.persist();
  const descriptor = context.catalog.find((tool) => tool.name === call.name);
  const server = descriptor?.mcp?.server;
  await session.emit("tool.started", { call_id: call.id, tool: call.name, args: eventArgs(call), ...(server ? { server } : {}) }, context.depth, context.run);
  const started = performance.now();
  if (descriptor?.handled_by === "mcp") {
    const mcpOutcome = await untilAborted(callMcp(context, call, descriptor), session.signal).catch((error: Error) =>
      errorOutcome(`The MCP call could not run: ${error.message}`, { mcp_server: server }),
    );
    await emitCompleted(context, call, mcpOutcome, performance.now() - started);
    return mcpOutcome;
  }
  const attempt = async (attemptId: string): Promise<CallOutcome> => {
    try {
      const result: ToolResult = await untilAborted(
        seams.tools.exec(
          session.record.id,
          session.record.workspace,
          { id: attemptId, name: call.name, arguments: call.arguments },
          { network: options.network, expectedDigests: options.expectedDigests },
        ),
        session.signal,
      );
      const outcome = { is_error: result.is_error, output: result.output, metadata: result.metadata, changed_paths: result.changed_paths, notices: result.notices };
      // Nothing of a secret file's content is shown (model or events) before the person approved it.
      return await reviewSecretOutput(context, call, outcome);
    } catch (error) {
      const message = error instanceof AideError ? `${error.code}: ${error.message}` : (error as Error).message;
      if (error instanceof AideError && error.code === "INTERRUPTED") return interruptedOutcome(call, error, !descriptorIsMutating(call, context));
      const details = error instanceof AideError ? error.toBody().details : undefined;
      const area = typeof details?.["area"] === "string" ? { disk_area: details["area"] } : {};
      return errorOutcome(`The tool could not run: ${message}`, error instanceof AideError ? { error_code: error.code, ...area } : {});
    }
  };
  // A full disk pauses the run until a try finds room (nothing is re-run that ran).
  const outcome = await waitOutFullDisk(context, call, await attempt(call.id), attempt);
  await emitCompleted(context, call, outcome, performance.now() - started);
  return outcome;
}

/** An abort ends the wait at once (the run ends); the tools service's own timeout still bounds the call. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("the run was aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("the run was aborted while the tool was running; its outcome is unknown"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function descriptorIsMutating(call: BatchCall, context: RunContext): boolean {
  const descriptor = context.catalog.find((tool) => tool.name === call.name);
  return descriptor ? !descriptor.read_only : true;
}

/**
 * Arguments as tool events show them: sanitized, with secret values redacted (the approval itself
 * shows them exactly). `tool.started` and `tool.completed` show the same arguments: kept per call
 * while its arguments object is the very same one (a repaired call gets a new object).
 */
const shownArgs = new WeakMap<BatchCall, { of: Record<string, unknown>; shown: Record<string, unknown> }>();
function eventArgs(call: BatchCall): Record<string, unknown> {
  const known = shownArgs.get(call);
  if (known !== undefined && known.of === call.arguments) return known.shown;
  const shown = redactSecretsDeep(sanitizeArgs(call.arguments)) as Record<string, unknown>;
  shownArgs.set(call, { of: call.arguments, shown });
  return shown;
}

/**
 * What events say of a call's output: an approved secret file's content never (the person
 * approved it for the model, not for every stream subscriber); anything else with the values of
 * secret-looking keys and tokens redacted, before it is cut to the summary's length.
 */
function withheld(outcome: CallOutcome): boolean {
  return outcome.metadata["secret_read"] === true;
}

function eventSummary(outcome: CallOutcome, redacted: string): string {
  if (withheld(outcome)) {
    const lines = typeof outcome.metadata["lines_shown"] === "number" ? `${outcome.metadata["lines_shown"]} lines` : "its content";
    return `(secret-looking file ${String(outcome.metadata["path"] ?? "")}: ${lines} given to the model as approved; not shown in events)`;
  }
  return summarizeOutput(redacted);
}

function isSkipReason(value: unknown): value is "earlier_call_rejected" | "run_ended" | "run_aborted" {
  return value === "earlier_call_rejected" || value === "run_ended" || value === "run_aborted";
}

/**
 * `tool.completed`, with the output's first lines for screens (unless withheld as a secret read).
 * Write bodies never reach an event: a client shows an edit from the checkpoint diff.
 */
export async function emitCompleted(context: RunContext, call: BatchCall, outcome: CallOutcome, durationMs: number): Promise<void> {
  // The output redacted once, for both the summary and the preview (it was redacted twice).
  const redacted = withheld(outcome) ? "" : redactSecrets(outcome.output);
  const server = mcpServerOf(context.catalog, call.name);
  await context.session.emit(
    "tool.completed",
    {
      call_id: call.id,
      tool: call.name,
      args: eventArgs(call),
      ...(server ? { server } : {}),
      is_error: outcome.is_error,
      summary: eventSummary(outcome, redacted),
      duration_ms: Math.round(durationMs * 1000) / 1000,
      metadata: redactSecretsDeep(sanitizeArgs(outcome.metadata)) as Record<string, unknown>,
      ...(withheld(outcome) ? {} : outputPreview(redacted)),
      ...(isSkipReason(outcome.metadata["skipped_because"]) ? { skipped: outcome.metadata["skipped_because"] } : {}),
    },
    context.depth,
    context.run,
  );
}
