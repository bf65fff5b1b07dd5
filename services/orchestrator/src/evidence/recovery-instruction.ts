import type { MissingEvidence } from "./evidence-kind.js";

/** Why one kind of evidence is missing, with what the instruction needs to be specific. */
export type Shortfall =
  | { kind: "artifact"; detail: "no_mutation" }
  | { kind: "artifact"; detail: "no_verification"; paths: string[] }
  | { kind: "artifact"; detail: "code_not_run"; paths: string[] }
  | { kind: "artifact"; detail: "all_rejected"; attempts: string[] }
  | { kind: "execution"; detail: "nothing_run" }
  | { kind: "execution"; detail: "not_run_after_change"; paths: string[] }
  | { kind: "execution"; detail: "unresolved_failure"; failure: string; output: string }
  | { kind: "source_file"; detail: "not_written" }
  | { kind: "report"; detail: "not_written" | "no_execution_before" }
  | { kind: "measurements"; detail: "no_numbers" }
  | { kind: "measurements"; detail: "unbacked"; numbers: string[] }
  | { kind: "claims"; detail: "unbacked"; claims: Array<{ quote: string; reason: string }>; summary: string }
  | { kind: "answer"; detail: "empty" }
  | { kind: "answer"; detail: "unbacked"; names: string[]; shown: string };

function lastLines(output: string, count: number): string {
  const lines = output.trimEnd().split("\n");
  return lines.slice(-count).join("\n").slice(-600);
}

function sentence(shortfall: Shortfall): string {
  switch (shortfall.kind) {
    case "artifact":
      if (shortfall.detail === "all_rejected") {
        return (
          `Every change proposed in this run was rejected, refused or failed (${shortfall.attempts.slice(-4).join("; ")}), so nothing was changed. ` +
          "Do not claim the change was made. Propose a change the person can accept, or, if you cannot, say plainly what you found and that nothing was changed (the run then ends unverified, not done)."
        );
      }
      if (shortfall.detail === "code_not_run") {
        return `You changed code (${shortfall.paths.join(", ")}) and only looked at it since; reading code back does not show that it works. Run its tests or the program with run_command (or type-check it with diagnostics) and base your answer on the result.`;
      }
      return shortfall.detail === "no_mutation"
        ? "No file was created or changed in this run. Make the change the task asks for with write_file or replace_in_file."
        : `You changed ${shortfall.paths.join(", ")} but never checked the result. Verify it: read the file back, run it or its tests, or look at git_diff.`;
    case "execution":
      if (shortfall.detail === "not_run_after_change") {
        return `You changed ${shortfall.paths.join(", ")} and the task asks for it to be run or tested, but nothing ran after your last change. Run the program or the tests with run_command now; reading the file back does not show that it works.`;
      }
      return shortfall.detail === "nothing_run"
        ? "Nothing was run or inspected in this run. Run the program or the tests with run_command and base your answer on the real output."
        : `${shortfall.failure} and nothing has succeeded since. Its output ended with:\n${lastLines(shortfall.output, 8)}\nFix the cause and run it again until it succeeds.`;
    case "source_file":
      return "The task asks for code: write it to a separate source file (for example main.py) with write_file and run that file; inline snippets and `python -c` do not count.";
    case "report":
      return shortfall.detail === "no_execution_before"
        ? "A report must describe real results: run the work first, then write the report file from the output."
        : "Write the report to its own file (for example REPORT.md) after running, using the real output.";
    case "measurements":
      return shortfall.detail === "no_numbers"
        ? "Your completion contains no measurements. Copy the exact numbers from a successful command's output into the result."
        : `These numbers in your completion do not appear in any successful command output: ${shortfall.numbers.join(", ")}. Run the measurement and copy the exact figures; never estimate.`;
    case "answer":
      if (shortfall.detail === "unbacked") {
        const names = shortfall.names
          .slice(0, 8)
          .map((name) => `\`${name}\``)
          .join(", ");
        return (
          `Your answer names ${names}, but no file this run read and no output it produced contains ${shortfall.names.length === 1 ? "it" : "them"} (${shortfall.shown}). ` +
          "A command that succeeded is not evidence for an answer, and neither is the question's wording. Find where the project defines this: search_files for the setting, read_file the code that uses it, " +
          "and answer only with names and numbers that code shows (a number computed from values you read is fine). If you cannot find it, say so."
        );
      }
      return "The task is a question and your completion is empty. Put the answer itself in attempt_completion's result, taken from what the tool results showed.";
    case "claims":
      return (
        "Your completion claims results that no event of this run shows:\n" +
        shortfall.claims.map((claim) => `   - "${claim.quote}": ${claim.reason}.`).join("\n") +
        `\n   The events show: ${shortfall.summary}.` +
        "\n   Report only what the tool results show: run what you claim to have run, change what you claim to have changed, copy counts and exit codes from real output, or drop the claim."
      );
    default: {
      const exhaustive: never = shortfall;
      return String(exhaustive);
    }
  }
}

/** One focused instruction covering everything that is missing, in the table's order. */
export function recoveryInstruction(shortfalls: Shortfall[]): string {
  const kinds: MissingEvidence[] = [...new Set(shortfalls.map((shortfall) => shortfall.kind))];
  const steps = shortfalls.map((shortfall, index) => `${index + 1}. ${sentence(shortfall)}`);
  return (
    `Completion rejected: the run has no evidence for ${kinds.join(", ")}. A claim is not proof; only successful tool results of this run count.\n` +
    `${steps.join("\n")}\nThen call attempt_completion again.`
  );
}
