import type { AideError } from "@aide/contracts";
import type { BatchCall, CallOutcome } from "../session/session-record.js";
import { errorOutcome } from "./call-outcomes.js";

const commandTools = new Set(["run_command", "process_start"]);

/**
 * What the model reads when the tools service died while it ran a call (INTERRUPTED: its
 * heartbeats stopped). The call is not repeated by the orchestrator: for a command or a write the
 * outcome is unknown, so the model is told to look before it decides to run it again.
 */
export function interruptedOutcome(call: BatchCall, error: AideError, readOnly: boolean): CallOutcome {
  const mayHaveRun = !readOnly && error.details?.["may_have_run"] !== false;
  const silentMs = typeof error.details?.["silent_ms"] === "number" ? (error.details["silent_ms"] as number) : undefined;
  const noticed = silentMs === undefined ? "" : ` (no heartbeat for ${Math.round(silentMs / 1000)} s)`;
  const effect = !mayHaveRun
    ? "This call changes nothing, so it is safe to send again."
    : commandTools.has(call.name)
      ? "The command may have run, partly or fully, before the service died (its processes died with it); it was NOT run again. Check its effects (read the files it writes, or run a read-only command) before deciding to run it again as a new call."
      : "The change may or may not have been written; it was NOT repeated. Read the file(s) before deciding to make the change again.";
  return errorOutcome(`INTERRUPTED: the tools service stopped while running ${call.name}${noticed}. ${effect}`, {
    error_code: "INTERRUPTED",
    may_have_run: mayHaveRun,
    ...(silentMs === undefined ? {} : { silent_ms: silentMs }),
  });
}
