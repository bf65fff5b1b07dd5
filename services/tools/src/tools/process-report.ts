/** Shared by the process tools: waiting for a background process and reporting its new output. */
import type { ToolContext } from "../framework/tool-types.js";
import type { BackgroundProcess } from "../sandbox/process-registry.js";

export const maxLifetimeMs = 2 * 60 * 60_000;
const pollTextLimit = 16_000;

export async function waitFor(process: BackgroundProcess, ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || process.result !== undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    process.running.finished,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => resolve(), { once: true });
    }),
  ]);
  clearTimeout(timer);
}

/** New output since the last poll, bounded, plus the state line. */
export function report(process: BackgroundProcess, context: ToolContext) {
  const { text, skippedBytes } = process.running.output.since(process.readBytes);
  process.readBytes = process.running.output.totalBytes;
  process.lastPolledAt = Date.now();
  const shown = text.length > pollTextLimit ? `[... ${text.length - pollTextLimit} earlier characters not shown ...]\n${text.slice(-pollTextLimit)}` : text;
  const result = process.result;
  const state =
    result === undefined
      ? `Process ${process.id} is running (\`${process.command}\`).`
      : result.timedOut
        ? `Process ${process.id} reached its time limit and was killed.`
        : `Process ${process.id} exited with ${result.exitCode ?? result.signal ?? "unknown status"}.`;
  void context;
  return {
    output: `${state}\n${shown.length > 0 ? shown : "(no new output)"}`,
    metadata: {
      process_id: process.id,
      running: result === undefined,
      exit_code: result?.exitCode ?? null,
      timed_out: result?.timedOut ?? false,
      output_bytes: process.running.output.totalBytes,
      skipped_bytes: skippedBytes,
    },
  };
}
