import { z } from "zod";
import { defineTool, type ToolContext } from "../framework/tool-types.js";
import { integerArg, pathArg } from "../framework/argument-types.js";
import { prepareCommand } from "./command-helpers.js";
import type { BackgroundProcess } from "../sandbox/process-registry.js";

const maxLifetimeMs = 2 * 60 * 60_000;
const pollTextLimit = 16_000;

async function waitFor(process: BackgroundProcess, ms: number, signal: AbortSignal): Promise<void> {
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
function report(process: BackgroundProcess, context: ToolContext) {
  const { text, skippedBytes } = process.running.output.since(process.readBytes);
  process.readBytes = process.running.output.totalBytes;
  process.lastPolledAt = Date.now();
  const shown = text.length > pollTextLimit ? `[... ${text.length - pollTextLimit} earlier characters not shown ...]\n${text.slice(-pollTextLimit)}` : text;
  const result = process.result;
  const state = result === undefined
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

export const processStartTool = defineTool({
  name: "process_start",
  description:
    "Start a long-running command (a dev server, a watcher) in the sandbox and return at once with its id and first output. Read more with process_poll; stop it with process_cancel.",
  parameters: z.strictObject({
    command: z.string().min(1).max(16_384).describe("The command line"),
    cwd: pathArg().optional().describe("Working directory relative to the workspace root"),
    timeout_ms: integerArg({ min: 1000, max: maxLifetimeMs }).optional().describe("Kill it after this long; default 30 minutes"),
    wait_ms: integerArg({ min: 0, max: 30_000 }).default(1000).describe("How long to wait for first output before returning"),
  }),
  kind: "process",
  readOnly: false,
  parallelSafe: false,
  timeoutMs: 60_000,
  async describeCommand(args, context) {
    const prepared = await prepareCommand(context, args.command, args.cwd, undefined);
    return { command: args.command, paths: prepared.ok ? [prepared.cwdRelative] : [] };
  },
  async execute(args, context) {
    const prepared = await prepareCommand(context, args.command, args.cwd, args.timeout_ms ?? 30 * 60_000);
    if (!prepared.ok) return { isError: true, output: prepared.error };
    let process: BackgroundProcess;
    try {
      process = await context.processes.start(context.session, args.command, {
        argv: prepared.argv,
        workspace: context.workspace.root,
        cwd: prepared.cwd,
        network: context.network,
        timeoutMs: Math.min(args.timeout_ms ?? 30 * 60_000, maxLifetimeMs),
        maxOutputBytes: 128 * 1024,
      });
    } catch (error) {
      if ((error as { code?: string }).code === "SANDBOX_UNAVAILABLE") throw error;
      return { isError: true, output: (error as Error).message };
    }
    await waitFor(process, args.wait_ms, context.signal);
    const outcome = report(process, context);
    return { ...outcome, isError: process.result !== undefined && process.result.exitCode !== 0 };
  },
});

export const processPollTool = defineTool({
  name: "process_poll",
  description: "Show the new output of a background process started with process_start, and whether it is still running.",
  parameters: z.strictObject({
    id: z.string().min(1).max(32).describe("The process id from process_start (e.g. p1)"),
    wait_ms: integerArg({ min: 0, max: 30_000 }).default(0).describe("Wait up to this long for the process to exit first"),
  }),
  aliases: { process_id: "id", pid: "id" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  timeoutMs: 45_000,
  async execute(args, context) {
    const process = context.processes.get(context.session, args.id);
    if (process === undefined) return { isError: true, output: `No background process ${args.id} in this session. Running: ${context.processes.list(context.session).map((p) => p.id).join(", ") || "none"}.` };
    await waitFor(process, args.wait_ms, context.signal);
    return report(process, context);
  },
});

export const processCancelTool = defineTool({
  name: "process_cancel",
  description: "Stop a background process (and everything it started) and show its last output.",
  parameters: z.strictObject({
    id: z.string().min(1).max(32).describe("The process id from process_start"),
  }),
  aliases: { process_id: "id", pid: "id" },
  kind: "process",
  readOnly: false,
  parallelSafe: false,
  async describeCommand(args) {
    return { command: `cancel background process ${args.id}` };
  },
  async execute(args, context) {
    const process = await context.processes.cancel(context.session, args.id);
    if (process === undefined) return { isError: true, output: `No background process ${args.id} in this session.` };
    return report(process, context);
  },
});
