/**
 * The `aide` command: the program (cli-program.ts) parses every subcommand's flags with commander
 * and loads the subcommand's module lazily. Exit codes: the command's own (0 ok, 1 failure, and
 * `aide run`'s 3 unverified / 130 aborted), 2 for a usage error (unknown flag or command, missing
 * or bad value), 0 for --help and --version.
 */
import { CommanderError } from "commander";
import { createProgram } from "./cli-program.js";
import { findUnknownCommand } from "./unknown-command.js";
import { guardPipes } from "./client/pipe-guard.js";

async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = createProgram({ set: (code) => (exitCode = code) });
  if (argv.length === 0) {
    process.stdout.write(program.helpInformation());
    return 2;
  }
  const unknown = findUnknownCommand(program, argv);
  if (unknown) {
    const where = unknown.path.join(" ");
    process.stderr.write(`error: unknown command '${unknown.word}' for '${where}'${unknown.suggestion ? ` (Did you mean ${unknown.suggestion}?)` : ""}\n(usage: ${where} --help)\n`);
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and version end in a CommanderError too; commander has already written them.
    if (["commander.helpDisplayed", "commander.help", "commander.version"].includes(error.code)) return 0;
    return 2;
  }
  return exitCode;
}

guardPipes();
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`aide: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
