import { callKey, type GuardedCall } from "./call-key.js";

export type LoopVerdict =
  | { action: "none" }
  /** The second identical failure: a different instruction replaces the repeated error. */
  | { action: "redirect"; message: string }
  /** The third: the run ends, saying what failed three times. */
  | { action: "stop"; message: string };

export type FailedResult = { is_error: boolean; output: string; error_code?: string; changed_paths: string[] };

/** What to try instead, by the tool that keeps failing (the model's next move, not a diagnosis). */
function suggestion(name: string, errorCode: string | undefined): string {
  if (errorCode === "VALIDATION")
    return "Its arguments do not match the tool's parameters: send only the parameters the tool lists, with values of the kind it describes (a number as digits, one of the listed words).";
  if ((name === "run_command" || name === "process_start") && (errorCode === "NOT_A_DIRECTORY" || errorCode === "FILE_NOT_FOUND")) {
    return "Its cwd is not a folder of the workspace: leave cwd out (the command runs in the workspace root) or give a folder that list_dir shows.";
  }
  switch (name) {
    case "read_file":
    case "list_dir":
      return "The path is probably wrong: call list_dir on the parent folder (or search_files for the file's name) and use a path it shows.";
    case "search_files":
      return "Search for a shorter, simpler pattern, or call list_dir to look at the folders instead.";
    case "replace_in_file":
    case "apply_patch":
      return "Call read_file on the file first and copy the lines you change exactly as it shows them, or make a smaller edit.";
    case "write_file":
      return "Check the path with list_dir, and read the error above before writing again.";
    case "run_command":
    case "process_start":
      return "Read the output above; change the code it points at, or run a different command that tells you more (a single test, a listing).";
    default:
      return "Use a different tool or different arguments.";
  }
}

function firstLine(output: string): string {
  const line = output.split("\n").find((entry) => entry.trim() !== "") ?? "it failed";
  return line.trim().slice(0, 240);
}

/**
 * The loop_breaker strategy (issue 28): the same call failing again with nothing changed in
 * between is a loop a small model rarely leaves on its own. The second identical failure gets a
 * different instruction (what failed twice, what to do instead) in place of the same error; the
 * third ends the run, saying so. Any successful change of the workspace starts the count afresh
 * (the same call may then rightly give another result). One instance per run; no I/O, never throws.
 */
export class LoopBreaker {
  private readonly failures = new Map<string, number>();

  observe(call: GuardedCall, result: FailedResult): LoopVerdict {
    if (!result.is_error) {
      if (result.changed_paths.length > 0) this.failures.clear();
      return { action: "none" };
    }
    const key = callKey(call);
    const count = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, count);
    if (count < 2) return { action: "none" };
    const what = `${call.name} with these same arguments`;
    if (count >= 3) return { action: "stop", message: `The same call failed ${count} times in a row with nothing changed in between (${what}: ${firstLine(result.output)})` };
    return {
      action: "redirect",
      message:
        `LOOP: ${what} has now failed twice the same way (${firstLine(result.output)}). Sending it again will fail again, and a third identical call ends the run.\n` +
        `Do something different: ${suggestion(call.name, result.error_code)}`,
    };
  }
}
