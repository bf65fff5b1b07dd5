/** What each stage of a model's first probe measures, for the line `aide run` prints. */
const stageText: Record<string, string> = {
  loading: "loading the model",
  speed: "measuring its speed",
  kv_reuse: "checking that it reuses its cache across turns",
  stop: "checking that its replies end cleanly",
  long_prompt: "checking whether the server cuts long prompts",
  tool_trials: "trying tool calls with and without the grammar",
  done: "done",
};

/**
 * One line per `model.probing` event: a first run on a model waits on its capability probe (once;
 * later runs read the cached profile), so the person sees it moves and what it is doing.
 */
export function describeProbeProgress(payload: { model?: unknown; stage?: unknown; percent?: unknown; elapsed_ms?: unknown }): string {
  const seconds = Math.round(Number(payload.elapsed_ms ?? 0) / 100) / 10;
  const stage = String(payload.stage);
  if (stage === "done") return `✓ probed ${String(payload.model)} in ${seconds} s (cached: later runs start at once)`;
  return `⧗ first use of ${String(payload.model)}: probing it, ${stageText[stage] ?? stage} — ${Math.round(Number(payload.percent ?? 0))} % (${seconds} s)`;
}
