/**
 * The `aide` command. Each subcommand is one module in ./commands exporting
 * `run(argv: string[]): Promise<number>` (the exit code); they load lazily so `aide events`
 * does not pay for the supervisor.
 */
const commands: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }> = {
  up: { summary: "start nats-server and the five services (the supervisor)", load: () => import("./commands/up.js") },
  demo: { summary: "start the stack and run a real session on examples/sample-project", load: () => import("./commands/demo.js") },
  run: { summary: 'run a task: aide run "<task>" [--workspace DIR] [--json] [--allow-command P] [--deny-rest]; --resume ID / --continue', load: () => import("./commands/run.js") },
  sessions: { summary: "list sessions", load: () => import("./commands/sessions.js") },
  approve: { summary: "decide a pending approval", load: () => import("./commands/approve.js") },
  restore: { summary: "restore a checkpoint (preview first)", load: () => import("./commands/restore.js") },
  models: { summary: "list the model registry; pull a local model: aide models pull <id>", load: () => import("./commands/models.js") },
  events: { summary: "tail agent.evt.> on the bus, pretty-printed", load: () => import("./commands/events.js") },
  "bus-config": { summary: "write the nats-server config and per-service credentials (docker-compose, external NATS)", load: () => import("./commands/bus-config.js") },
  doctor: { summary: "check nats-server, bubblewrap, ripgrep, git and the model", load: () => import("./commands/doctor.js") },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return ["usage: aide <command> [options]", "", ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(usage() + "\n");
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`aide: unknown command '${name}'\n${usage()}\n`);
    return 2;
  }
  const module = await command.load();
  return module.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error: unknown) => {
    process.stderr.write(`aide: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
