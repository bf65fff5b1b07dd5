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

export function waitsForTerminal(name: string, args: string[]): boolean {
  if (name === "git") return gitWaitsForInput(args);
  if (name === "docker" || name === "podman") return containerWaitsForInput(args);
  if (name === "npm" || name === "pnpm" || name === "yarn") {
    return args[0] === "init" && !hasOption(args, ["-y", "--yes"]);
  }
  if (/^python[\d.]*$/.test(name)) return args[0] === "-m" && args[1] === "pdb";
  if (name === "node") return args[0] === "inspect" || args[0] === "debug";
  return false;
}
