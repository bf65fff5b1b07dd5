import { textApprovalPreview } from "../approvals/text-approval-preview.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { requestApproval } from "../turn/gate-approval.js";
import { secretPathRule, type SecretPathRule } from "./secret-paths.js";
import { withholdSecretDiffSections, withholdSecretSearchHits } from "./withhold-secret-output.js";

/** An ordinary failure the model sees (run-tool-call's shape; not imported from there, which calls this module). */
function errorOutcome(output: string, metadata: Record<string, unknown> = {}): CallOutcome {
  return { is_error: true, output, metadata, changed_paths: [], notices: [] };
}

export type SecretVerdict = { kind: "run" } | { kind: "stop"; outcome: CallOutcome };

function pathArgument(call: BatchCall): string | undefined {
  const path = call.arguments["path"];
  return typeof path === "string" ? path : undefined;
}

/**
 * Asks the person before a secret-looking file's content goes to the model: an approval of its
 * own kind (`secret_read`) that no auto-approve rule grants (reads pass without asking; this one
 * never does). `resolved` is set when the named path looked harmless but resolved to a secret.
 */
export async function approveSecretRead(context: RunContext, call: BatchCall, path: string, rule: SecretPathRule, named?: string): Promise<SecretVerdict> {
  const via = named !== undefined && named !== path ? ` (named as ${named}, which resolves to it)` : "";
  const decision = await requestApproval(context, {
    call,
    preview: textApprovalPreview(call, {
      kind: "read",
      mutating: false,
      command: `Read the secret-looking file ${path}${via} and give its content to the model. It matches ${rule.pattern}: ${rule.reason}.`,
      paths: [path],
    }),
    network: "none",
    networkTokens: [],
    needsProtectedConfirmation: false,
    kind: "secret_read",
  });
  switch (decision.decision) {
    case "approve":
      return { kind: "run" };
    case "abort":
      context.outcome = { kind: "aborted", reason: decision.feedback ?? "aborted by the person at an approval" };
      return { kind: "stop", outcome: errorOutcome("The person aborted the run.") };
    case "timeout":
      return { kind: "stop", outcome: errorOutcome(`Not read: nobody approved reading the secret-looking file ${path} in time (default deny).`, { denied: "timeout", secret: true }) };
    case "reject": {
      const feedback = decision.feedback ? ` Their feedback: ${decision.feedback}` : "";
      return {
        kind: "stop",
        outcome: errorOutcome(`The person did not approve reading the secret-looking file ${path}; its content was not shown. Do not try to get it another way.${feedback}`, {
          denied: "rejected",
          secret: true,
        }),
      };
    }
    default: {
      const never: never = decision.decision;
      throw new Error(`unknown decision ${String(never)}`);
    }
  }
}

/** Before a read_file runs: a secret-looking path (as the model named it) is put to the person first. */
export async function gateSecretReadByName(context: RunContext, call: BatchCall): Promise<SecretVerdict> {
  if (call.name !== "read_file" || call.approval !== undefined) return { kind: "run" };
  const path = pathArgument(call);
  const rule = path === undefined ? undefined : secretPathRule(path);
  if (path === undefined || rule === undefined) return { kind: "run" };
  return approveSecretRead(context, call, path, rule);
}

/**
 * After a read-only tool ran, before anything of its output is shown (events or model): a
 * read_file whose resolved path is secret-looking is approved now if it was not yet (a symlink
 * with a harmless name); search hits and diff sections of secret files are left out.
 */
export async function reviewSecretOutput(context: RunContext, call: BatchCall, outcome: CallOutcome): Promise<CallOutcome> {
  switch (call.name) {
    case "read_file": {
      if (outcome.is_error) return outcome;
      const named = pathArgument(call);
      const resolved = typeof outcome.metadata["path"] === "string" ? (outcome.metadata["path"] as string) : named;
      const rule = resolved === undefined ? undefined : (secretPathRule(resolved) ?? (named === undefined ? undefined : secretPathRule(named)));
      if (rule === undefined || resolved === undefined) return outcome;
      if (call.approval === undefined) {
        const verdict = await approveSecretRead(context, call, resolved, rule, named);
        // Still this execution (its tool.completed is the caller's): the approval wait is over.
        call.status = "executing";
        if (verdict.kind === "stop") return verdict.outcome;
      }
      return { ...outcome, metadata: { ...outcome.metadata, secret_read: true } };
    }
    case "search_files":
      return withholdSecretSearchHits(outcome);
    case "git_diff":
      return withholdSecretDiffSections(outcome);
    default:
      return outcome;
  }
}
