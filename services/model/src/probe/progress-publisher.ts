import type { ModelProbeProgress } from "@aide/contracts";

/** How often a stage's progress is sent at most; a new stage and the end are always sent. */
const minIntervalMs = 1_000;

/**
 * One caller's progress listener: sends a report when a stage begins, when the probe is done, and
 * within a stage at most once a second, so a slow model's probe shows it moves without one bus
 * message per chat. `send` must not throw.
 */
export function throttledProgress(send: (progress: ModelProbeProgress) => void, now: () => number = Date.now): (progress: ModelProbeProgress) => void {
  let lastStage: string | undefined;
  let lastSent = 0;
  return (progress) => {
    const at = now();
    if (progress.stage === lastStage && progress.stage !== "done" && at - lastSent < minIntervalMs) return;
    lastStage = progress.stage;
    lastSent = at;
    send(progress);
  };
}
