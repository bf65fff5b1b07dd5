/** Characters that need a shell: the command then runs as `bash -o pipefail -c`. */
const shellSyntax = /[|&;<>()$`\\"'*?[\]{}~#\n]|^\s*\w+=/;

const interactive = new Set([
  "python",
  "python3",
  "python2",
  "node",
  "bash",
  "sh",
  "zsh",
  "fish",
  "dash",
  "ksh",
  "irb",
  "ipython",
  "psql",
  "mysql",
  "sqlite3",
  "redis-cli",
  "mongo",
  "mongosh",
  "ghci",
  "lua",
  "R",
  "julia",
  "scala",
  "clojure",
  "php",
  "ruby",
  "perl",
  "deno",
  "bun",
]);
const neverEnding = new Set(["vim", "vi", "nvim", "nano", "emacs", "less", "more", "top", "htop", "man", "watch", "ssh", "telnet", "ftp", "tmux", "screen"]);

export type ParsedCommand = { ok: true; argv: string[]; shell: boolean } | { ok: false; error: string };

export function parseCommandLine(command: string): ParsedCommand {
  const trimmed = command.trim();
  if (trimmed === "") return { ok: false, error: "`command` is empty." };
  if (trimmed.includes("\0")) return { ok: false, error: "`command` contains a NUL byte." };
  const words = trimmed.split(/\s+/);
  const program = words[0].split("/").pop() ?? words[0];
  const flagsOnly = words.slice(1).every((w) => /^-[a-zA-Z]+$/.test(w) && !["-c", "-e", "-m", "-p"].includes(w));
  if (interactive.has(program) && flagsOnly) {
    return {
      ok: false,
      error: `\`${trimmed}\` starts an interactive program that would wait for input forever (stdin is closed). Run a script or pass the code (e.g. \`${program} file\` or \`${program} -c '...'\`).`,
    };
  }
  if (neverEnding.has(program)) {
    return { ok: false, error: `\`${program}\` is interactive and is not available to the agent. Use read_file, search_files or a non-interactive command instead.` };
  }
  if (/^tail\s+(-\w*f|--follow)/.test(trimmed)) return { ok: false, error: "`tail -f` never ends; read the file, or use process_start and process_poll." };
  if (shellSyntax.test(trimmed)) return { ok: true, argv: ["bash", "-o", "pipefail", "-c", trimmed], shell: true };
  return { ok: true, argv: words, shell: false };
}
