import { resolve } from "node:path";
import { createGatewayClient, type GatewayClient } from "../client/gateway-client.js";
import { followSession, type Outcome } from "../client/follow-session.js";
import { earlySummaryLine, followSessionJson } from "../client/follow-session-json.js";
import { createLinePrompt } from "../client/line-prompt.js";
import { reportError } from "../client/require-stack.js";
import { ContinuationError, resolveContinuation, type Continuation } from "../client/resolve-continuation.js";
import { combineRunPolicy, loadRunPolicyFile, RunPolicyError, runPolicyFromFlags, type RunPolicy } from "../client/run-policy.js";
import { createSpinner } from "../client/spinner.js";
import { findStack, startStack, type StartedStack } from "../client/stack-discovery.js";
import { createStyle } from "../client/terminal-style.js";
import { checkWorkspacePath } from "../client/check-workspace-path.js";
import { onBrokenPipe } from "../client/pipe-guard.js";
import { jsonForScreen, renderForScreen } from "@aide/contracts";
import { aideHome } from "../supervisor/aide-home.js";
import type { ExperimentSettings } from "@aide/contracts";
import { ArmSyntaxError, parseSettings } from "../eval/parse-arm.js";

const usage = 'usage: aide run "<task>" [options] | aide run --resume SESSION "<message>" | aide run --continue "<message>" (aide run --help)';

/** `aide run`'s flags as the program parsed them (cli-program.ts). */
export interface RunFlags {
  workspace?: string;
  mode: "plan" | "act";
  model?: string;
  json?: boolean;
  verbose?: boolean;
  autoApprove?: string;
  allowCommand?: string[];
  denyRest?: boolean;
  approvalTimeout?: string;
  config?: string;
  resume?: string;
  continue?: boolean;
  /** `--setting KEY=VALUE`: experiment settings of this run (parse-arm.ts). */
  setting?: string[];
  /** `--trust-instructions`: the project instructions found are trusted for this run (source "flag"), nothing stored. */
  trustInstructions?: boolean;
}

/**
 * `aide run "<task>"`: uses the running stack (or starts one and stops it at the end), starts a
 * session (or a new run of one: `--resume`, `--continue`), streams it, asks for approvals when
 * there is a terminal, and exits 0 done, 3 unverified, 1 failed, 130 aborted. With `--json`
 * stdout holds only the events, one per line, and the summary last; people's messages go to stderr.
 */
export async function run(taskWords: string[], options: RunFlags): Promise<number> {
  if (options.json !== true) return runTask(taskWords, options, () => undefined);
  let sessionStarted = false;
  let early: { code: string; message: string } | undefined;
  const exitCode = await runTask(taskWords, options, (event) => {
    if (event === "session") sessionStarted = true;
    else early = event;
  });
  // A run that ended before its session existed still ends stdout with a summary line.
  if (!sessionStarted && exitCode !== 0)
    process.stdout.write(jsonForScreen(JSON.stringify(earlySummaryLine(exitCode, early ?? { code: "INTERNAL", message: "the run ended before a session was started" }))) + "\n");
  return exitCode;
}

/** What `run` reports before the stream: the session started, or the early failure's code and message. */
type EarlySink = (event: "session" | { code: string; message: string }) => void;

async function runTask(taskWords: string[], options: RunFlags, early: EarlySink): Promise<number> {
  const task = taskWords.join(" ").trim();
  const resume = options.resume;
  if (!task || (resume !== undefined && options.continue === true)) {
    const message = !task ? "no task given" : "--resume and --continue exclude each other";
    early({ code: "VALIDATION", message });
    process.stderr.write(`aide run: ${message}\n${usage}\n`);
    return 2;
  }
  let policy: RunPolicy;
  try {
    const flags = runPolicyFromFlags({
      allowCommand: options.allowCommand ?? [],
      autoApprove: options.autoApprove,
      denyRest: options.denyRest === true,
      approvalTimeout: options.approvalTimeout,
    });
    policy = combineRunPolicy(loadRunPolicyFile(options.config, aideHome().root), flags);
  } catch (error) {
    if (!(error instanceof RunPolicyError)) throw error;
    early({ code: "VALIDATION", message: error.message });
    process.stderr.write(`aide: ${error.message}\n${usage}\n`);
    return 2;
  }
  let experiment: ExperimentSettings | undefined;
  try {
    experiment = options.setting === undefined || options.setting.length === 0 ? undefined : parseSettings(options.setting);
  } catch (error) {
    if (!(error instanceof ArmSyntaxError)) throw error;
    process.stderr.write(`aide run: ${error.message}\n${usage}\n`);
    return 2;
  }
  const json = options.json === true;
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !json;
  const style = createStyle(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && !json);
  let started: StartedStack | undefined;
  let connection = findStack();
  const workspace = resolve(options.workspace ?? process.cwd());
  const refused = resume === undefined ? checkWorkspacePath(workspace, { stackStarted: !connection }) : undefined;
  if (refused) {
    early({ code: refused.code, message: refused.message });
    process.stderr.write(renderForScreen(`aide: ${refused.code}: ${refused.message}`) + "\n");
    return 1;
  }
  try {
    if (!connection) {
      process.stderr.write("aide: no running stack; starting one for this run (aide up)…\n");
      started = await startStack({ workspace });
      connection = started.connection;
      // A reader that went away (`aide run --json … | head -1`) ends this process: the stack it started goes too.
      const own = started;
      onBrokenPipe(() => own.stop());
    }
    const client = createGatewayClient(connection);
    let continuation: Continuation | undefined;
    try {
      continuation = await resolveContinuation(client, { resume, continueIn: options.continue === true ? workspace : undefined });
    } catch (error) {
      if (!(error instanceof ContinuationError)) throw error;
      early({ code: "SESSION_NOT_FOUND", message: error.message });
      process.stderr.write(`aide: ${error.message}\n`);
      return 2;
    }
    // Read before the new run starts, so only its events are followed.
    const since = continuation ? (await client.status(continuation.session)).last_seq : 0;
    const start = await client.start({
      task,
      workspace: continuation?.workspace ?? workspace,
      mode: options.mode,
      ...(continuation ? { session: continuation.session } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(policy.autoApprove ? { auto_approve: policy.autoApprove } : {}),
      ...(policy.approvalTimeoutSeconds !== undefined ? { approval_timeout_seconds: policy.approvalTimeoutSeconds } : {}),
      ...(experiment !== undefined ? { experiment } : {}),
      ...(options.trustInstructions === true ? { trust_instructions: true } : {}),
    });
    early("session");
    const header = `session ${start.session} · run ${start.run} · ${continuation?.workspace ?? workspace}`;
    // With --json, stdout is the event stream alone.
    if (json) process.stderr.write(header + "\n");
    else process.stdout.write(style.dim(header) + "\n");
    return await follow(client, start, since, json, interactive, style, started, options.verbose === true);
  } catch (error) {
    early({ code: (error as { code?: string }).code ?? "INTERNAL", message: (error as Error).message });
    return reportError(error);
  } finally {
    if (started) {
      process.stderr.write("aide: stopping the stack this run started…\n");
      await started.stop();
    }
  }
}

async function follow(
  client: GatewayClient,
  start: { session: string; run: string },
  since: number,
  json: boolean,
  interactive: boolean,
  style: ReturnType<typeof createStyle>,
  started: StartedStack | undefined,
  verbose: boolean,
): Promise<number> {
  const follower: { outcome: Promise<Outcome>; abort?(reason: string): Promise<void> } = json
    ? followSessionJson({ client, session: start.session, run: start.run, since, out: process.stdout })
    : followSession({
        client,
        session: start.session,
        since,
        out: process.stdout,
        style,
        spinner: createSpinner(process.stderr, interactive),
        prompt: interactive ? createLinePrompt(process.stdin, process.stdout) : undefined,
        verbose,
      });
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1) {
      started?.signal();
      process.exit(130);
    }
    process.stderr.write("\naide: aborting the run (Ctrl-C again to quit at once)\n");
    const abort = follower.abort ?? ((reason: string) => client.abort(start.session, reason).then(() => undefined));
    void abort("interrupted at the terminal").catch((error: unknown) => process.stderr.write(`aide: abort failed: ${(error as Error).message}\n`));
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onInterrupt);
  const outcome = await follower.outcome;
  process.off("SIGINT", onInterrupt);
  process.off("SIGTERM", onInterrupt);
  return outcome.exitCode;
}
