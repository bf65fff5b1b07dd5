import { describe, expect, it } from "vitest";
import { deriveEvidenceRequirements } from "./derive-requirements.js";
import { EvidenceLedger } from "./evidence-ledger.js";
import type { EvidenceEvent } from "./evidence-kind.js";
import { classifyTask, type TaskIntent } from "./task-intent.js";

/**
 * Issue 12's verdict table: task phrasings (defect reports, imperatives, questions; English,
 * German, French, Spanish) × event histories → whether a completion with no claims in it ends the
 * run `done` or is rejected. Only a plain question is answered from reads alone; everything else
 * needs a successful change and a later verification; a change made in any run must be verified;
 * a run whose every change was rejected never ends `done`.
 */
type Verdict = "done" | "rejected";
type Row = "question_workspace" | "question_general" | "execution" | "change" | "conversation";

function history(...entries: Array<Omit<EvidenceEvent, "seq">>): EvidenceEvent[] {
  return entries.map((entry, index) => ({ ...entry, seq: index + 1 }));
}
const base = { is_error: false, metadata: {}, output: "", changed_paths: [] as string[] };
const read = (path: string) => ({ ...base, tool: "read_file", args: { path }, output: "1 | export function buildPatternSlug() {}" });
const write = (path: string) => ({ ...base, tool: "replace_in_file", args: { path, diff: "…" }, changed_paths: [path] });
const run = (command: string, exit: number, output = "") => ({
  ...base,
  tool: "run_command",
  args: { command },
  is_error: exit !== 0,
  metadata: { exit_code: exit },
  output: `Exit code: ${exit}\n${output}`,
});
const rejected = <T extends { metadata: Record<string, unknown> }>(call: T) => ({
  ...call,
  is_error: true,
  metadata: { denied: "rejected" },
  changed_paths: [],
  output: "The person rejected this call; it was not run.",
});
const refused = <T extends { metadata: Record<string, unknown> }>(call: T) => ({ ...call, is_error: true, metadata: { refused: true }, changed_paths: [], output: "Refused: plan mode." });

const histories = {
  nothing: history(),
  reads: history(read("src/slug.ts")),
  every_change_rejected: history(read("src/slug.ts"), rejected(write("src/slug.ts")), rejected(run("npx ava", 0))),
  every_change_refused: history(read("src/slug.ts"), refused(write("src/slug.ts"))),
  edit_then_nothing: history(read("src/slug.ts"), write("src/slug.ts")),
  command_only: history(run("npx ava", 0, "20 tests passed")),
  edit_then_read_back: history(write("src/slug.ts"), read("src/slug.ts")),
  edit_then_tests_pass: history(read("src/slug.ts"), write("src/slug.ts"), run("npx ava", 0, "20 tests passed")),
  edit_then_tests_fail: history(write("src/slug.ts"), run("npx ava", 1, "1 test failed")),
};
type History = keyof typeof histories;

const expected: Record<Row, Record<History, Verdict>> = {
  change: {
    nothing: "rejected",
    reads: "rejected",
    every_change_rejected: "rejected",
    every_change_refused: "rejected",
    edit_then_nothing: "rejected",
    command_only: "rejected",
    edit_then_read_back: "done",
    edit_then_tests_pass: "done",
    edit_then_tests_fail: "rejected",
  },
  question_workspace: {
    nothing: "rejected",
    reads: "done",
    every_change_rejected: "rejected",
    every_change_refused: "rejected",
    edit_then_nothing: "rejected",
    command_only: "done",
    edit_then_read_back: "done",
    edit_then_tests_pass: "done",
    edit_then_tests_fail: "rejected",
  },
  question_general: {
    nothing: "done",
    reads: "done",
    every_change_rejected: "rejected",
    every_change_refused: "rejected",
    edit_then_nothing: "rejected",
    command_only: "done",
    edit_then_read_back: "done",
    edit_then_tests_pass: "done",
    edit_then_tests_fail: "rejected",
  },
  execution: {
    nothing: "rejected",
    reads: "done",
    every_change_rejected: "rejected",
    every_change_refused: "rejected",
    edit_then_nothing: "rejected",
    command_only: "done",
    edit_then_read_back: "done",
    edit_then_tests_pass: "done",
    edit_then_tests_fail: "rejected",
  },
  conversation: {
    nothing: "done",
    reads: "done",
    every_change_rejected: "rejected",
    every_change_refused: "rejected",
    edit_then_nothing: "rejected",
    command_only: "done",
    edit_then_read_back: "done",
    edit_then_tests_pass: "done",
    edit_then_tests_fail: "rejected",
  },
};

const intentOf: Record<Row, TaskIntent> = {
  change: "change",
  question_workspace: "question",
  question_general: "question",
  execution: "execution",
  conversation: "conversation",
};

const phrasings: Array<[string, Row]> = [
  // Defect reports with no imperative verb, and bare names: strict.
  ["uppercase letters vanish when lowercase is false", "change"],
  ["When lowercase is false, uppercase letters vanish", "change"],
  ["buildPatternSlug drops digits from the slug", "change"],
  ["The slug test fails on CI", "change"],
  ["test/slug.test.js fails", "change"],
  ["Crash when the input is empty.", "change"],
  ["src/slug.ts", "change"],
  ["npm test", "change"],
  ["TypeError: Cannot read properties of undefined (reading 'length') in slug.ts", "change"],
  ["the lowercase option", "change"],
  // Imperatives and requests.
  ["Fix the failing test in sum.test.js", "change"],
  ["Make the tests pass", "change"],
  ["Add a --dry-run flag to the CLI", "change"],
  ["Rename buildPatternSlug to buildSlug", "change"],
  ["Please update the README", "change"],
  ["Can you fix the bug in src/slug.ts?", "change"],
  ["Read a.ts and fix it", "change"],
  ["How is the config loaded? Then fix the bug in it", "change"],
  ["Where is buildPatternSlug defined, and can you rename it?", "change"],
  ["I need you to remove the debug logging", "change"],
  ["Look at the failing test", "change"],
  ["Ask an explorer to look around", "change"],
  ["The tests fail. Why?", "change"],
  // Plain questions: reads suffice.
  ["What does parseToolCalls do?", "question_workspace"],
  ["Where is buildPatternSlug defined?", "question_workspace"],
  ["Why do uppercase letters vanish when lowercase is false?", "question_workspace"],
  ["How do I fix the bug in src/slug.ts?", "question_workspace"],
  ["Explain the architecture of this repo", "question_workspace"],
  ["List the files in src", "question_workspace"],
  ["Which tests cover src/slug.ts?", "question_workspace"],
  ["Is there a bug in slug.ts?", "question_workspace"],
  ["I use Node 20. What does the lowercase option in src/slug.ts do?", "question_workspace"],
  ["Ask a reviewer what a.txt says", "question_workspace"],
  ["What is a monad?", "question_general"],
  ["Explain recursion to me", "question_general"],
  // Plain requests to run or analyse (the evidence table's row 2).
  ["Run the test suite", "execution"],
  ["Analyze the log for errors", "execution"],
  ["Check the build", "execution"],
  ["Fetch the data from the local server with curl", "execution"],
  // German
  ["Behebe den Fehler in slug.ts", "change"],
  ["Großbuchstaben verschwinden, wenn lowercase false ist", "change"],
  ["Kannst du den Fehler in src/slug.ts beheben?", "change"],
  ["Bitte füge einen Test hinzu", "change"],
  ["Was macht buildPatternSlug?", "question_workspace"],
  ["Warum schlägt der Test fehl?", "question_workspace"],
  ["Führe die Tests aus", "execution"],
  // French
  ["Corrige le bug dans slug.ts", "change"],
  ["Les majuscules disparaissent quand lowercase est false", "change"],
  ["Quand lowercase est false, les majuscules disparaissent", "change"],
  ["Peux-tu ajouter un test pour slug.ts ?", "change"],
  ["Pourquoi le test échoue-t-il ?", "question_workspace"],
  ["Où est définie la fonction buildPatternSlug ?", "question_workspace"],
  ["Lance les tests", "execution"],
  // Spanish
  ["Arregla el error en slug.ts", "change"],
  ["Las mayúsculas desaparecen cuando lowercase es false", "change"],
  ["¿Puedes corregir el test de slug.ts?", "change"],
  ["¿Qué hace buildPatternSlug?", "question_workspace"],
  ["¿Dónde se define la función buildPatternSlug?", "question_workspace"],
  ["¿Por qué falla el test?", "question_workspace"],
  ["Ejecuta las pruebas", "execution"],
  // Not a task.
  ["hello", "conversation"],
  ["thanks!", "conversation"],
];

function verdict(task: string, events: EvidenceEvent[]): Verdict {
  const ledger = new EvidenceLedger();
  for (const event of events) ledger.record(event);
  return ledger.evaluate(deriveEvidenceRequirements(task), "Here is what I found.").satisfied ? "done" : "rejected";
}

describe(`the verdict table: ${phrasings.length} phrasings × ${Object.keys(histories).length} histories`, () => {
  it("has at least 40 phrasings", () => {
    expect(phrasings.length).toBeGreaterThanOrEqual(40);
  });

  it.each(phrasings)("%s is read as %s", (task, row) => {
    expect(classifyTask(task)).toBe(intentOf[row]);
  });

  const cases = phrasings.flatMap(([task, row]) => (Object.keys(histories) as History[]).map((name) => [task, name, expected[row][name]] as const));
  it.each(cases)("%s, after %s → %s", (task, name, wanted) => {
    expect(verdict(task, histories[name])).toBe(wanted);
  });
});
