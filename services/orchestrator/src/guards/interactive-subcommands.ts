/**
 * Subcommands that wait for a terminal even though the program itself is not a REPL: git opening
 * an editor, container shells with a TTY, init wizards, debuggers. Each returns true when the
 * invocation would block on input that a sandboxed command never gets.
 */
const EDITOR_FREE_COMMIT = ["-m", "--message", "-F", "--file", "--no-edit", "-C", "--reuse-message", "--fixup", "--squash"];

function hasOption(args: string[], options: string[]): boolean {
  return args.some((arg) => options.includes(arg) || options.some((option) => option.startsWith("--") && arg.startsWith(`${option}=`)));
}

function gitWaitsForInput(args: string[]): boolean {
  const subcommandIndex = args.findIndex((arg) => !arg.startsWith("-"));
  const subcommand = args[subcommandIndex];
  const rest = args.slice(subcommandIndex + 1);
  switch (subcommand) {
    case "commit":
      return !hasOption(rest, EDITOR_FREE_COMMIT) && !rest.some((arg) => /^-[a-zA-Z]*m/.test(arg) && !arg.startsWith("--"));
    case "rebase":
      return hasOption(rest, ["-i", "--interactive"]);
    case "add":
    case "checkout":
    case "reset":
    case "stash":
      return hasOption(rest, ["-p", "--patch", "-i", "--interactive"]);
    case "tag":
      return hasOption(rest, ["-a", "--annotate", "-s", "--sign"]) && !hasOption(rest, ["-m", "--message", "-F", "--file"]);
    default:
      return false;
  }
}

function containerWaitsForInput(args: string[]): boolean {
  const subcommand = args.find((arg) => !arg.startsWith("-"));
  if (subcommand !== "run" && subcommand !== "exec") return false;
  return args.some((arg) => /^-[a-zA-Z]*[it][a-zA-Z]*$/.test(arg) || arg === "--interactive" || arg === "--tty");
}

/** Why the invocation would block and what to run instead, or undefined when it does not block. */
export function terminalWaitAdvice(name: string, args: string[]): string | undefined {
  if (name === "git" && gitWaitsForInput(args)) {
    return 'git would open an editor or an interactive prompt. Pass the message with -m "…" (or --no-edit), and avoid -i / -p.';
  }
  if ((name === "docker" || name === "podman") && containerWaitsForInput(args)) {
    return `${name} with -i/-t attaches a terminal. Drop -it and pass the command to run inside the container.`;
  }
  if ((name === "npm" || name === "pnpm" || name === "yarn") && args[0] === "init" && !hasOption(args, ["-y", "--yes"])) {
    return `${name} init asks questions. Add -y to accept the defaults.`;
  }
  if ((/^python[\d.]*$/.test(name) && args[0] === "-m" && args[1] === "pdb") || (name === "node" && (args[0] === "inspect" || args[0] === "debug"))) {
    return "An interactive debugger waits for commands. Add prints or logging and run the program normally.";
  }
  return undefined;
}

export function waitsForTerminal(name: string, args: string[]): boolean {
  return terminalWaitAdvice(name, args) !== undefined;
}
