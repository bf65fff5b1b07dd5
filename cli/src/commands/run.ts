import { resolve } from "node:path";
import { ModeSchema } from "@aide/contracts";
import { createGatewayClient } from "../client/gateway-client.js";
import { followSession } from "../client/follow-session.js";
import { createLinePrompt } from "../client/line-prompt.js";
import { parseArgs, stringOption } from "../client/parse-args.js";
import { reportError } from "../client/require-stack.js";
import { createSpinner } from "../client/spinner.js";
import { findStack, startStack, type StartedStack } from "../client/stack-discovery.js";
import { createStyle } from "../client/terminal-style.js";

const usage = 'usage: aide run "<task>" [--workspace DIR] [--mode plan|act] [--model ID] [--auto-approve reads|edits]';

/**
 * `aide run "<task>"`: uses the running stack (or starts one and stops it at the end), starts a
 * session, streams it, asks for approvals when there is a terminal, and exits 0 when the run is done.
 */
export async function run(argv: string[]): Promise<number> {
  const { positionals, options } = parseArgs(argv, ["help"]);
  const task = positionals.join(" ").trim();
  if (options.help || !task) {
    process.stderr.write(usage + "\n");
    return options.help ? 0 : 2;
  }
  const mode = ModeSchema.safeParse(stringOption(options, "mode") ?? "act");
  const autoApprove = stringOption(options, "auto-approve");
  if (!mode.success || (autoApprove !== undefined && !["reads", "edits"].includes(autoApprove))) {
    process.stderr.write(usage + "\n");
    return 2;
  }
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const style = createStyle(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  let started: StartedStack | undefined;
  let connection = findStack();
  const workspace = resolve(stringOption(options, "workspace") ?? process.cwd());
  try {
    if (!connection) {
      process.stderr.write("aide: no running stack; starting one for this run (aide up)…\n");
      started = await startStack({ workspace });
      connection = started.connection;
    }
    const client = createGatewayClient(connection);
    const start = await client.start({
      task,
      workspace,
      mode: mode.data,
      ...(stringOption(options, "model") ? { model: stringOption(options, "model") } : {}),
      ...(autoApprove ? { auto_approve: { edits: autoApprove === "edits", commands: [] } } : {}),
    });
    process.stdout.write(style.dim(`session ${start.session} · run ${start.run} · ${workspace}`) + "\n");
    const follower = followSession({
      client,
      session: start.session,
      out: process.stdout,
      style,
      spinner: createSpinner(process.stderr, interactive),
      prompt: interactive ? createLinePrompt(process.stdin, process.stdout) : undefined,
    });
    let interrupts = 0;
    const onInterrupt = () => {
      interrupts += 1;
      if (interrupts > 1) {
        started?.signal();
        process.exit(130);
      }
      process.stderr.write("\naide: aborting the run (Ctrl-C again to quit at once)\n");
      void follower.abort("interrupted at the terminal");
    };
    process.on("SIGINT", onInterrupt);
    process.on("SIGTERM", onInterrupt);
    const outcome = await follower.outcome;
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
    return outcome.exitCode;
  } catch (error) {
    return reportError(error);
  } finally {
    if (started) {
      process.stderr.write("aide: stopping the stack this run started…\n");
      await started.stop();
    }
  }
}
