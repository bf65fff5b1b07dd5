import { effectiveCommand, parseShell, type EffectiveCommand } from "../network/index.js";
import { terminalWaitAdvice } from "./interactive-subcommands.js";

type ReplRule = {
  /** Options whose presence makes the program run something and exit. */
  batchFlags: string[];
  /** Options that take a value (so the value is not read as a script). */
  valueFlags?: string[];
  /** Whether a positional argument is a script (python x.py) or just a target (psql mydb). */
  positionalIsScript: boolean;
  /** How many positionals make it non-interactive when they are not scripts (sqlite3 db "sql"). */
  positionalsForBatch?: number;
};

const VERSION_FLAGS = ["--version", "--help", "-h", "-V"];

const SCRIPTED: ReplRule = { batchFlags: ["-e", "-c", "--eval", "--command", "-f", "--file", "-x"], positionalIsScript: true };

const REPLS: Record<string, ReplRule> = {
  python: { batchFlags: ["-c", "-m"], valueFlags: ["-W", "-X", "-Q"], positionalIsScript: true },
  node: { batchFlags: ["-e", "--eval", "-p", "--print", "-v", "--check", "-c", "--test", "--run"], valueFlags: ["-r", "--require", "--import", "--loader"], positionalIsScript: true },
  shell: { batchFlags: ["-c"], valueFlags: ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"], positionalIsScript: true },
  psql: { batchFlags: ["-c", "--command", "-f", "--file", "-l", "--list"], valueFlags: ["-h", "-p", "-U", "-d", "--host", "--port", "--username", "--dbname"], positionalIsScript: false },
  mysql: { batchFlags: ["-e", "--execute"], valueFlags: ["-h", "-P", "-u", "-D", "--host", "--port", "--user", "--database"], positionalIsScript: false },
  sqlite3: { batchFlags: ["-cmd", "-batch", "-version"], positionalIsScript: false, positionalsForBatch: 2 },
  "redis-cli": { batchFlags: ["-x", "--eval"], valueFlags: ["-h", "-p", "-a", "-n", "-u"], positionalIsScript: true },
  irb: SCRIPTED,
  ipython: SCRIPTED,
  ptpython: SCRIPTED,
  lua: SCRIPTED,
  luajit: SCRIPTED,
  ghci: SCRIPTED,
  r: SCRIPTED,
  julia: SCRIPTED,
  "ts-node": SCRIPTED,
  tsx: SCRIPTED,
  erl: { batchFlags: ["-eval", "-s", "-run", "-noshell"], positionalIsScript: false },
  iex: SCRIPTED,
  scala: SCRIPTED,
  mongo: { ...SCRIPTED, positionalIsScript: false },
  mongosh: { ...SCRIPTED, positionalIsScript: false },
  deno: { batchFlags: ["run", "eval", "test", "fmt", "lint", "check", "task", "compile", "info", "cache", "bench", "-e"], positionalIsScript: true },
  php: { batchFlags: ["-r", "-f", "-l", "-m", "-i"], positionalIsScript: true },
  perl: { batchFlags: ["-e", "-E", "-c"], positionalIsScript: true },
  ruby: { batchFlags: ["-e", "-c"], positionalIsScript: true },
};

/** Full-screen or paging programs: they wait for a keyboard whatever their arguments. */
const ALWAYS_INTERACTIVE = new Set(["vim", "vi", "nvim", "nano", "emacs", "pico", "less", "more", "most", "top", "htop", "btop", "man", "tmux", "screen", "mc"]);

function replRule(name: string): ReplRule | undefined {
  if (/^python[\d.]*$/.test(name)) return REPLS["python"];
  if (name === "nodejs") return REPLS["node"];
  if (["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"].includes(name)) return REPLS["shell"];
  return REPLS[name];
}

function isInteractiveInvocation(name: string, args: string[]): boolean {
  if (ALWAYS_INTERACTIVE.has(name)) return !(name === "emacs" && args.includes("--batch"));
  const rule = replRule(name);
  if (rule === undefined) return false;
  if (args.some((arg) => VERSION_FLAGS.includes(arg) && !rule.valueFlags?.includes(arg))) return false;
  const forcesRepl = rule === REPLS["python"] || rule === REPLS["node"] || rule === REPLS["shell"];
  if (forcesRepl && args.includes("-i")) return true;
  if (args.includes("repl")) return true;
  let positionals = 0;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (rule.batchFlags.includes(arg) || rule.batchFlags.some((flag) => flag.startsWith("--") && arg.startsWith(`${flag}=`))) {
      return false;
    }
    if (arg.startsWith("-") && arg !== "-") {
      if (rule.valueFlags?.includes(arg)) index += 1;
      continue;
    }
    if (rule.positionalIsScript) return false;
    positionals += 1;
  }
  return positionals < (rule.positionalsForBatch ?? Number.POSITIVE_INFINITY);
}

/** `npx ts-node` runs `ts-node`: look through package runners to the program they start. */
function unwrapPackageRunner(effective: EffectiveCommand | undefined): EffectiveCommand | undefined {
  if (effective === undefined || !["npx", "pnpx", "bunx"].includes(effective.name)) return effective;
  const args = effective.args;
  let index = 0;
  while (index < args.length && args[index].startsWith("-")) index += ["-p", "--package"].includes(args[index]) ? 2 : 1;
  return index < args.length ? effectiveCommand(args.slice(index)) : effective;
}

/**
 * Why a command would wait for a keyboard that the sandbox does not have, with what to run instead;
 * undefined when it would not. Covers REPLs (`python3`, `node`, `bash`, `psql mydb`), editors and
 * pagers (`vim x`, `less`), `git commit` without a message, `docker run -it`, `npm init` without `-y`.
 * Input piped or redirected in (`echo 1 | python3`, `python3 < x.py`, a heredoc) makes it non-interactive.
 */
export function interactiveCommandAdvice(command: string): string | undefined {
  for (const pipeline of parseShell(command).pipelines) {
    for (let index = 0; index < pipeline.length; index += 1) {
      const simple = pipeline[index];
      const effective = unwrapPackageRunner(effectiveCommand(simple.words));
      if (effective === undefined) continue;
      const advice = terminalWaitAdvice(effective.name, effective.args);
      if (advice !== undefined) return advice;
      const fedInput = index > 0 || simple.stdinRedirected;
      if (fedInput && !ALWAYS_INTERACTIVE.has(effective.name)) continue;
      if (fedInput && ["less", "more", "most"].includes(effective.name)) continue;
      if (!isInteractiveInvocation(effective.name, effective.args)) continue;
      return ALWAYS_INTERACTIVE.has(effective.name)
        ? `${effective.name} is a full-screen program. Read files with read_file or cat/sed, and edit with replace_in_file.`
        : `${effective.name} without a script starts an interactive session. Run a script file, or pass the code with -c / -e.`;
    }
  }
  return undefined;
}

/** True when the command would wait for a terminal (see `interactiveCommandAdvice`). */
export function isBareInteractive(command: string): boolean {
  return interactiveCommandAdvice(command) !== undefined;
}
