import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg, pathArg } from "../framework/argument-types.js";
import { maxCommandTimeoutMs, prepareCommand } from "./command-helpers.js";
import { changedSince } from "../files/changed-since.js";
import { commandGitEnvironment } from "./command-git-environment.js";
import { commandScripts } from "./command-scripts.js";
import { protectedFlags } from "../files/protected-paths.js";

export const runCommandTool = defineTool({
  name: "run_command",
  description:
    "Run a shell command in the workspace inside a sandbox (no network unless approved, private /tmp, stdin closed) and return its exit code and output. Long outputs keep the head and the tail. For servers and watchers use process_start.",
  parameters: z.strictObject({
    command: z.string().min(1).max(16_384).describe("The command line, e.g. `npm test` or `ls -la src | head`"),
    cwd: pathArg().optional().describe("Working directory relative to the workspace root; default the root"),
    timeout_ms: integerArg({ min: 1, max: maxCommandTimeoutMs }).optional().describe("Wall-clock limit in milliseconds; default 120000, at most 900000"),
  }),
  aliases: { directory: "cwd", dir: "cwd", path: "cwd" },
  kind: "command",
  readOnly: false,
  parallelSafe: false,
  maxOutputChars: 40_000,
  timeoutMs: maxCommandTimeoutMs,
  async describeCommand(args, context) {
    const prepared = await prepareCommand(context, args.command, args.cwd, args.timeout_ms);
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
    const prepared = await prepareCommand(context, args.command, args.cwd, args.timeout_ms);
    if (!prepared.ok) return { isError: true, output: prepared.error, metadata: { error_code: prepared.code } };
    const git = await commandGitEnvironment(context, prepared.cwd);
    if (!git.ok) return { isError: true, output: git.error, metadata: { error_code: "FORBIDDEN" } };
    // File times come from the kernel's coarse clock, up to a tick (1-10 ms) behind Date.now().
    const startedAt = Date.now() - 10;
    const result = await context.sandbox.run({
      argv: prepared.argv,
      workspace: context.workspace.root,
      cwd: prepared.cwd,
      network: context.network,
      timeoutMs: prepared.timeoutMs,
      signal: context.signal,
      session: context.session,
      maxOutputBytes: 24_000,
      env: git.env,
    });
    const changed = await changedSince(context.workspace, startedAt);
    // A command's writes are not previewed: the protected ones it made are said afterwards.
    const protectedChanges = protectedFlags(changed.paths).filter((flag) => flag.kind !== "confusable_name");
    const metadata = {
      ...(protectedChanges.length > 0 ? { protected_changes: protectedChanges } : {}),
      changed_paths_incomplete: changed.incomplete,
      exit_code: result.exitCode,
      signal: result.signal,
      timed_out: result.timedOut,
      aborted: result.aborted,
      truncated: result.truncated,
      duration_ms: result.durationMs,
      output_lines: result.totalLines,
      sandbox: context.sandbox.mode,
      network: context.network,
      cwd: prepared.cwdRelative,
      git_config_neutralized: git.drivers,
    };
    let status: string;
    if (result.timedOut) status = `The command timed out after ${prepared.timeoutMs} ms and was killed with every process it started.`;
    else if (result.aborted) status = "The command was aborted.";
    else if (result.interrupted !== undefined) status = `The command was killed: ${result.interrupted} (SANDBOX_SPAWNER_LOST); it may have run in part. Run it again if that is safe.`;
    else if (result.exitCode === null) status = `The command was killed by ${result.signal ?? "a signal"} (a resource limit, or out of memory).`;
    else status = `Exit code: ${result.exitCode}`;
    if (protectedChanges.length > 0) status += `\nThis command changed protected files: ${protectedChanges.map((flag) => `${flag.path} (${flag.reason})`).join("; ")}.`;
    const body = result.stdout.length > 0 ? result.stdout : "(no output)";
    const isError = result.timedOut || result.aborted || result.exitCode !== 0;
    return { isError, output: `${status}\n${body}`, metadata, changedPaths: changed.paths };
  },
});
