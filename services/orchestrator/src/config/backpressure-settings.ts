import { z } from "zod";
import { aideError } from "@aide/contracts";
import { positiveIntegerSetting } from "@aide/runtime";

/** How the orchestrator waits out busy services and notices dead ones (services/orchestrator/README.md, "Environment"). */
export interface BackpressureSettings {
  /** Commands (`agent.cmd.*`) handled at once (`AIDE_ORCHESTRATOR_MAX_IN_FLIGHT`); more wait their turn, fairly per session. */
  maxInFlight: number;
  /** Commands waiting at most (`AIDE_ORCHESTRATOR_MAX_QUEUED`); past it BUSY, which the gateway retries. */
  maxQueued: number;
  /** How long a call to a busy service keeps retrying (`AIDE_BUSY_WAIT_MS`) before it fails UNAVAILABLE. */
  busyWaitMs: number;
  /** Heartbeats asked of long requests (tool exec, model chat) (`AIDE_HEARTBEAT_INTERVAL_MS`). */
  heartbeatIntervalMs: number;
  /** Silence after which such a request ends INTERRUPTED (`AIDE_HEARTBEAT_TIMEOUT_MS`). */
  heartbeatTimeoutMs: number;
  /** Added to a command's own timeout for its request's timeout (`AIDE_COMMAND_REPLY_MARGIN_MS`). */
  commandReplyMarginMs: number;
}

export const defaultBackpressure: BackpressureSettings = {
  maxInFlight: 64,
  maxQueued: 512,
  busyWaitMs: 300_000,
  heartbeatIntervalMs: 2_000,
  heartbeatTimeoutMs: 15_000,
  commandReplyMarginMs: 30_000,
};

const count = positiveIntegerSetting;

const BackpressureEnvSchema = z.object({
  AIDE_ORCHESTRATOR_MAX_IN_FLIGHT: count(defaultBackpressure.maxInFlight),
  AIDE_ORCHESTRATOR_MAX_QUEUED: count(defaultBackpressure.maxQueued),
  AIDE_BUSY_WAIT_MS: count(defaultBackpressure.busyWaitMs),
  AIDE_HEARTBEAT_INTERVAL_MS: count(defaultBackpressure.heartbeatIntervalMs),
  AIDE_HEARTBEAT_TIMEOUT_MS: count(defaultBackpressure.heartbeatTimeoutMs),
  AIDE_COMMAND_REPLY_MARGIN_MS: count(defaultBackpressure.commandReplyMarginMs),
});

/** Parsed once at start; a value that is set but not a positive integer is CONFIG_INVALID. */
export function backpressureFromEnv(env: NodeJS.ProcessEnv): BackpressureSettings {
  const parsed = BackpressureEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw aideError("CONFIG_INVALID", {
      detail: parsed.error.issues.map((issue) => `${issue.path.join(".")} must be a positive integer, got ${JSON.stringify(env[String(issue.path[0])])}`).join("; "),
    });
  }
  const values = parsed.data;
  if (values.AIDE_HEARTBEAT_TIMEOUT_MS <= values.AIDE_HEARTBEAT_INTERVAL_MS) {
    throw aideError("CONFIG_INVALID", { detail: "AIDE_HEARTBEAT_TIMEOUT_MS must be longer than AIDE_HEARTBEAT_INTERVAL_MS" });
  }
  return {
    maxInFlight: values.AIDE_ORCHESTRATOR_MAX_IN_FLIGHT,
    maxQueued: values.AIDE_ORCHESTRATOR_MAX_QUEUED,
    busyWaitMs: values.AIDE_BUSY_WAIT_MS,
    heartbeatIntervalMs: values.AIDE_HEARTBEAT_INTERVAL_MS,
    heartbeatTimeoutMs: values.AIDE_HEARTBEAT_TIMEOUT_MS,
    commandReplyMarginMs: values.AIDE_COMMAND_REPLY_MARGIN_MS,
  };
}
