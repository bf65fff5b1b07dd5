import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg, pathArg } from "../framework/argument-types.js";
import { prepareCommand } from "./command-helpers.js";
import { commandGitEnvironment } from "./command-git-environment.js";
import { commandScripts } from "./command-scripts.js";
import type { BackgroundProcess } from "../sandbox/process-registry.js";
import { maxLifetimeMs, report, waitFor } from "./process-report.js";

export const processStartTool = defineTool({
  name: "process_start",
  description: "Start a long-running command (a dev server, a watcher) in the sandbox and return at once with its id and first output. Read more with process_poll; stop it with process_cancel.",
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
    if (!prepared.ok) return { command: args.command, paths: [] };
    const shown = await commandScripts(context, args.command, prepared.cwdRelative);
    return {
      command: args.command,
      paths: [prepared.cwdRelative],
      scripts: shown.scripts,
      ...(shown.digest !== undefined ? { scriptsDigest: shown.digest } : {}),
      ...(shown.alternative ? { alternative: shown.alternative } : {}),
    };
  },
  async execute(args, context) {
    const prepared = await prepareCommand(context, args.command, args.cwd, args.timeout_ms ?? 30 * 60_000);
    if (!prepared.ok) return { isError: true, output: prepared.error, metadata: { error_code: prepared.code } };
    const git = await commandGitEnvironment(context, prepared.cwd);
    if (!git.ok) return { isError: true, output: git.error, metadata: { error_code: "FORBIDDEN" } };
    let process: BackgroundProcess;
    try {
      process = await context.processes.start(context.session, args.command, {
        argv: prepared.argv,
        workspace: context.workspace.root,
        cwd: prepared.cwd,
        network: context.network,
        timeoutMs: Math.min(args.timeout_ms ?? 30 * 60_000, maxLifetimeMs),
        maxOutputBytes: 128 * 1024,
        env: git.env,
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "SANDBOX_UNAVAILABLE" || code === "SANDBOX_LIMITS_UNAVAILABLE") throw error;
      return { isError: true, output: (error as Error).message };
    }
    await waitFor(process, args.wait_ms, context.signal);
    const outcome = report(process, context);
    return { ...outcome, isError: process.result !== undefined && process.result.exitCode !== 0 };
  },
});
