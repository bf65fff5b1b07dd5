import { effectiveCommand, parseShell } from "../network/index.js";

/** Documentation and data formats: never programs, whatever their execute bit says. */
const DATA_EXTENSIONS = new Set([
  "md",
  "markdown",
  "txt",
  "rst",
  "adoc",
  "json",
  "jsonc",
  "json5",
  "jsonl",
  "ndjson",
  "csv",
  "tsv",
  "yaml",
  "yml",
  "toml",
  "xml",
  "ini",
  "cfg",
  "conf",
  "log",
  "lock",
  "html",
  "htm",
  "svg",
  "pdf",
  "png",
  "jpg",
  "jpeg",
  "gif",
]);

/** Programs that take a script path as their first positional argument. */
const INTERPRETERS = /^(python[\d.]*|node|nodejs|deno|bun|ts-node|tsx|bash|sh|zsh|dash|ksh|ruby|perl|php|lua|rscript|julia|source|\.)$/;

const INTERPRETER_VALUE_FLAGS = new Set(["-W", "-X", "-r", "--require", "--import", "--loader", "-o", "-O"]);

function extensionOf(path: string): string | undefined {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? undefined : base.slice(dot + 1).toLowerCase();
}

function isDataPath(path: string): boolean {
  const extension = extensionOf(path);
  return extension !== undefined && DATA_EXTENSIONS.has(extension);
}

function scriptArgument(args: string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    // `python -m json.tool x.json`, `node -e …`: the data file is an input, not the program.
    if (["-m", "-c", "-e", "-p", "--eval", "--print", "-E", "-r"].includes(arg)) return undefined;
    if (arg.startsWith("-")) {
      if (INTERPRETER_VALUE_FLAGS.has(arg)) index += 1;
      continue;
    }
    return arg;
  }
  return undefined;
}

/**
 * True when a command runs a documentation or data file as a program: `./README.md`,
 * `python3 data.json`, `bash notes.txt`. Reading them (`cat`, `jq`, `python3 tool.py data.json`)
 * is fine.
 */
export function isDataFileExecution(command: string): boolean {
  for (const pipeline of parseShell(command).pipelines) {
    for (const simple of pipeline) {
      const effective = effectiveCommand(simple.words);
      if (effective === undefined) continue;
      if (isDataPath(effective.program)) return true;
      if (INTERPRETERS.test(effective.name)) {
        const script = scriptArgument(effective.args);
        if (script !== undefined && isDataPath(script)) return true;
      }
    }
  }
  return false;
}
