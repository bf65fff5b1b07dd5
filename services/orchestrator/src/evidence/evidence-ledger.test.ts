import { describe, expect, it } from "vitest";
import { EvidenceLedger } from "./evidence-ledger.js";
import type { EvidenceEvent } from "./evidence-kind.js";

let seq = 0;
function event(tool: string, args: Record<string, unknown>, options: Partial<EvidenceEvent> = {}): EvidenceEvent {
  seq += 1;
  return { seq, tool, is_error: false, args, metadata: {}, output: "", changed_paths: [], ...options };
}
const write = (path: string, content = "x") => event("write_file", { path, content }, { changed_paths: [path] });
const read = (path: string) => event("read_file", { path }, { output: "1 | x" });
const run = (command: string, exitCode: number, output = "") => event("run_command", { command }, { metadata: { exit_code: exitCode }, is_error: exitCode !== 0, output });

function ledgerOf(...events: EvidenceEvent[]): EvidenceLedger {
  const ledger = new EvidenceLedger();
  for (const entry of events) ledger.record(entry);
  return ledger;
}

describe("row 1: concrete artifact = a successful mutation and a LATER successful verification", () => {
  it("is missing without any mutation", () => {
    const result = ledgerOf(read("a.ts")).evaluate(["artifact"], "Done");
    expect(result).toMatchObject({ satisfied: false, missing: ["artifact"] });
    expect(result.instruction).toContain("No file was created or changed");
  });

  it("is missing with a mutation but no later verification (a read BEFORE the write does not count)", () => {
    const result = ledgerOf(read("a.ts"), write("a.ts")).evaluate(["artifact"], "Done");
    expect(result.missing).toEqual(["artifact"]);
    expect(result.instruction).toContain("a.ts");
    expect(result.instruction).toMatch(/verify/i);
  });

  it("a failed write is not a mutation", () => {
    const failed = event("write_file", { path: "a.ts" }, { is_error: true, output: "lint gate failed" });
    expect(ledgerOf(failed, read("a.ts")).evaluate(["artifact"], "Done").satisfied).toBe(false);
  });

  it("a read back by the absolute path the tools service resolved to the changed file verifies it", () => {
    const readBack = (path: string) => event("read_file", { path: `/home/person/project/${path}` }, { output: "1 | x", metadata: { path } });
    const changed = write("src/cal.py");
    expect(ledgerOf(changed, readBack("src/cal.py")).evaluate(["artifact"], "Done").satisfied).toBe(true);
    const changedAgain = write("src/cal.py");
    expect(ledgerOf(changedAgain, readBack("src/other.py")).evaluate(["artifact"], "Done").satisfied).toBe(false);
  });

  it("a read of another file does not verify the artifact", () => {
    expect(ledgerOf(write("a.ts"), read("b.ts")).evaluate(["artifact"], "Done").satisfied).toBe(false);
  });

  it.each([
    ["a later read of the file", () => read("./a.ts")],
    ["git_diff", () => event("git_diff", {}, { output: "+x" })],
    ["git_status", () => event("git_status", {}, { output: "M a.ts" })],
    ["a successful command", () => run("node a.ts", 0, "ok")],
    ["a process poll", () => event("process_poll", { id: "p1" }, { output: "listening" })],
  ])("is satisfied by %s", (_name, verification) => {
    const result = ledgerOf(write("a.ts"), verification()).evaluate(["artifact"], "Done");
    expect(result).toMatchObject({ satisfied: true, missing: [], instruction: "" });
    expect(result.evidence.length).toBe(2);
  });

  it("diagnostics verifies the file it type-checked without errors, and nothing else", () => {
    const diagnostics = (path: string, errors: number) => event("diagnostics", { path }, { metadata: { source: "typescript", problems: errors, errors } });
    expect(ledgerOf(write("a.ts"), diagnostics("a.ts", 0)).evaluate(["artifact"], "Done").satisfied).toBe(true);
    expect(ledgerOf(write("a.ts"), diagnostics("a.ts", 2)).evaluate(["artifact"], "Done").satisfied).toBe(false);
    expect(ledgerOf(write("a.ts"), diagnostics("b.ts", 0)).evaluate(["artifact"], "Done").satisfied).toBe(false);
  });

  it("pyright's check of a Python file counts like TypeScript's; a syntax-only check (no Go checker) is not a type check", () => {
    const pyright = (errors: number) => event("diagnostics", { path: "app/service.py" }, { metadata: { source: "pyright", problems: errors, errors } });
    expect(ledgerOf(write("app/service.py"), pyright(0)).evaluate(["artifact"], "Done").satisfied).toBe(true);
    expect(ledgerOf(write("app/service.py"), pyright(1)).evaluate(["artifact"], "Done").satisfied).toBe(false);
    const syntaxOnly = event("diagnostics", { path: "main.go" }, { metadata: { source: "tree-sitter syntax", problems: 0, errors: 0, type_checked: false, unavailable_reason: "GO_CHECKER_ABSENT" } });
    expect(ledgerOf(write("main.go"), syntaxOnly).evaluate(["artifact"], "Done").satisfied).toBe(false);
  });

  it("replace_in_file and apply_patch count as mutations", () => {
    const replace = event("replace_in_file", { path: "a.ts", diff: "…" }, { changed_paths: ["a.ts"] });
    expect(ledgerOf(replace, read("a.ts")).evaluate(["artifact"], "").satisfied).toBe(true);
    const patch = event("apply_patch", { diff: "…" }, { changed_paths: ["b.ts"] });
    expect(ledgerOf(patch, read("b.ts")).evaluate(["artifact"], "").satisfied).toBe(true);
  });
});

describe("row 2: execute/test/analyze = at least one successful execution or inspection", () => {
  it("is missing when nothing ran", () => {
    const result = new EvidenceLedger().evaluate(["execution"], "Here is the answer.");
    expect(result).toMatchObject({ satisfied: false, missing: ["execution"] });
    expect(result.instruction).toContain("run_command");
  });

  it("is satisfied by a successful command (exit_code 0)", () => {
    expect(ledgerOf(run("npm test", 0, "3 passed")).evaluate(["execution"], "ok").satisfied).toBe(true);
  });

  it("is satisfied by an inspection when no command was attempted", () => {
    expect(ledgerOf(read("src/a.ts")).evaluate(["execution"], "It does X").satisfied).toBe(true);
  });

  it("a non-zero exit code is a failure even without is_error", () => {
    const failed = event("run_command", { command: "npm test" }, { metadata: { exit_code: 1 }, output: "1 failed" });
    expect(ledgerOf(failed).evaluate(["execution"], "ok").satisfied).toBe(false);
  });
});

describe("a failed command stays unresolved until a later execution succeeds", () => {
  it("rejects with the failure named, even after reads and edits", () => {
    const result = ledgerOf(run("npm test", 1, "FAIL sum.test.js\nexpected 3, received 4"), write("sum.js"), read("sum.js")).evaluate(["artifact"], "Fixed");
    expect(result.missing).toEqual(["execution"]);
    expect(result.instruction).toContain("npm test");
    expect(result.instruction).toContain("expected 3, received 4");
  });

  it("resolves when a later execution succeeds", () => {
    const ledger = ledgerOf(run("npm test", 1, "FAIL"), write("sum.js"), run("npm test", 0, "PASS"));
    expect(ledger.evaluate(["artifact", "execution"], "Fixed")).toMatchObject({ satisfied: true, missing: [] });
  });

  it("does not block a pure question", () => {
    expect(ledgerOf(run("ls nope", 2, "No such file")).evaluate([], "It is in src/").satisfied).toBe(true);
  });
});

describe("row 3: source-code request = a separate executable source file", () => {
  it("is missing when only prose or inline code was produced", () => {
    const notes = write("notes.md");
    const inline = run("python3 -c 'print(2+2)'", 0, "4");
    const result = ledgerOf(notes, inline).evaluate(["source_file"], "print(2+2)");
    expect(result).toMatchObject({ satisfied: false, missing: ["source_file"] });
    expect(result.instruction).toContain("separate source file");
  });

  it("is satisfied by writing a source file", () => {
    expect(ledgerOf(write("primes.py"), run("python3 primes.py", 0, "2 3 5")).evaluate(["source_file"], "done").satisfied).toBe(true);
  });
});

describe("row 4: report request = a separate report written AFTER execution", () => {
  it("is missing when the report was written before anything ran", () => {
    const result = ledgerOf(write("REPORT.md"), run("python3 bench.py", 0, "12.5 ms")).evaluate(["report"], "see REPORT.md");
    expect(result.missing).toEqual(["report"]);
  });

  it("is missing when nothing ran at all", () => {
    const result = ledgerOf(write("REPORT.md"), read("REPORT.md")).evaluate(["report"], "see REPORT.md");
    expect(result.missing).toEqual(["report"]);
    expect(result.instruction).toMatch(/run the work first/i);
  });

  it("a source file does not count as the report", () => {
    expect(ledgerOf(run("ls", 0, "a"), write("report.py")).evaluate(["report"], "done").satisfied).toBe(false);
  });

  it("is satisfied by a report file written after a successful execution", () => {
    const ledger = ledgerOf(run("python3 bench.py", 0, "12.5 ms"), write("results/REPORT.md"), read("results/REPORT.md"));
    expect(ledger.evaluate(["report"], "see REPORT.md").satisfied).toBe(true);
  });
});

describe("row 5: benchmark/comparison = exact numbers copied from successful execution output", () => {
  const bench = () => run("python3 bench.py", 0, "sort_a: 12.53 ms\nsort_b: 48.10 ms\nitems: 10,000");

  it("is satisfied when every number appears in successful output", () => {
    const result = ledgerOf(bench()).evaluate(["measurements"], "sort_a takes 12.53 ms, sort_b 48.10 ms over 10,000 items.");
    expect(result.satisfied).toBe(true);
  });

  it("rejects invented or rounded numbers and names them", () => {
    const result = ledgerOf(bench()).evaluate(["measurements"], "sort_a takes 12.5 ms, sort_b 48.10 ms: 3.8x faster.");
    expect(result.missing).toEqual(["measurements"]);
    expect(result.instruction).toContain("12.5");
    expect(result.instruction).toContain("3.8");
    expect(result.instruction).not.toContain("48.10,");
  });

  it("numbers from failed output do not count", () => {
    const failed = run("python3 bench.py", 1, "partial: 12.53 ms\nTraceback");
    expect(ledgerOf(failed).evaluate(["measurements"], "12.53 ms").satisfied).toBe(false);
  });

  it("a completion without numbers is rejected", () => {
    const result = ledgerOf(bench()).evaluate(["measurements"], "A is much faster than B.");
    expect(result.missing).toEqual(["measurements"]);
    expect(result.instruction).toContain("no measurements");
  });
});

describe("calls that never ran", () => {
  it("refused, rejected or skipped calls are neither evidence nor unresolved failures", () => {
    const refused = event("run_command", { command: "curl x" }, { is_error: true, metadata: { refused: true } });
    const rejected = event("run_command", { command: "rm -rf build" }, { is_error: true, metadata: { denied: "rejected" } });
    const skipped = event("write_file", { path: "a.ts" }, { metadata: { skipped: true } });
    const ledger = ledgerOf(write("a.ts"), read("a.ts"), refused, rejected, skipped);
    expect(ledger.evaluate(["artifact", "execution"], "done")).toMatchObject({ satisfied: true });
    expect(ledgerOf(refused).evaluate(["execution"], "done").instruction).toContain("Nothing was run");
  });
});

describe("a run whose every proposed change was rejected never ends done", () => {
  const rejectedWrite = () => event("replace_in_file", { path: "src/slug.ts", diff: "…" }, { is_error: true, metadata: { denied: "rejected" } });
  const refusedWrite = () => event("write_file", { path: "src/slug.ts" }, { is_error: true, metadata: { refused: true } });
  const failedWrite = () => event("replace_in_file", { path: "src/slug.ts", diff: "…" }, { is_error: true, output: "SEARCH block not found" });

  it.each([
    ["rejected by the person", rejectedWrite, "rejected by the person"],
    ["refused", refusedWrite, "refused"],
    ["failed", failedWrite, "failed"],
  ])("whatever the task asks, when the only change was %s", (_name, attempt, words) => {
    for (const required of [[], ["execution"], ["artifact"]] as const) {
      const result = ledgerOf(read("src/slug.ts"), attempt(), read("src/slug.ts")).evaluate([...required], "Here is what I found.");
      expect(result.satisfied).toBe(false);
      expect(result.missing).toContain("artifact");
      expect(result.instruction).toContain("Every change proposed in this run was rejected, refused or failed");
      expect(result.instruction).toContain(words);
    }
  });

  it("one applied and verified change after a rejected one is a real change", () => {
    const result = ledgerOf(rejectedWrite(), write("src/slug.ts"), read("src/slug.ts")).evaluate(["artifact"], "Changed src/slug.ts.");
    expect(result.satisfied).toBe(true);
  });

  it("a rejected command alone (no change proposed) does not trigger the rule for a question", () => {
    const command = event("run_command", { command: "npx ava" }, { is_error: true, metadata: { denied: "rejected" } });
    expect(ledgerOf(read("src/slug.ts"), command).evaluate(["execution"], "It lowercases the slug.").satisfied).toBe(true);
  });
});

describe("a change made in any run must be verified", () => {
  it("a question's run that changed a file without checking it is rejected", () => {
    const result = ledgerOf(read("a.ts"), write("a.ts")).evaluate(["execution"], "It does X.");
    expect(result.missing).toEqual(["artifact"]);
  });
});

describe("evaluate", () => {
  it("reports several missing kinds in one focused instruction, in table order", () => {
    const result = new EvidenceLedger().evaluate(["measurements", "artifact", "report"], "done");
    expect(result.missing).toEqual(["artifact", "report", "measurements"]);
    expect(result.instruction).toMatch(/^Completion rejected/);
    expect(result.instruction).toContain("1. ");
    expect(result.instruction).toContain("3. ");
  });

  it("accepts any completion when nothing is required", () => {
    expect(new EvidenceLedger().evaluate([], "hello")).toEqual({ satisfied: true, missing: [], instruction: "", evidence: [], claims: [] });
  });
});

describe("a question about a failure: a run that shows the failure is the evidence", () => {
  const asked = { failureIsAnswer: true };
  it("a failing run answers it; without the option the same run is an unresolved failure", () => {
    const events = () => [read("math.js"), run("node math.test.js", 1, "AssertionError: add(2, 3) should be 5")];
    const answered = ledgerOf(...events()).evaluate(["execution"], "add subtracts; the test exits 1", asked);
    expect(answered).toMatchObject({ satisfied: true, missing: [] });
    expect(answered.evidence.join(" ")).toContain("shows the failure asked about");
    expect(ledgerOf(...events()).evaluate(["execution"], "add subtracts").missing).toEqual(["execution"]);
  });

  it("a command that was not found, killed or timed out shows no failure", () => {
    for (const failed of [run("nodee math.test.js", 127), event("run_command", { command: "node t.js" }, { is_error: true, metadata: { exit_code: null, timed_out: true } })]) {
      expect(ledgerOf(read("math.js"), failed).evaluate(["execution"], "it fails", asked).satisfied).toBe(false);
    }
  });

  it("once the run changed a file, a failing run is no evidence that the change works", () => {
    const result = ledgerOf(read("math.js"), write("math.js"), run("node math.test.js", 1)).evaluate(["execution"], "it fails", asked);
    expect(result.satisfied).toBe(false);
    expect(result.missing).toContain("execution");
  });
});

describe("a change task that asks for a run (runAfterChange)", () => {
  it("after a change to a file that runs or builds, a read back is not the run: only an execution after the change is", () => {
    // Measured: SmolLM2 filled go.mod with junk on "… go run . -name bob -upper prints HELLO, BOB!", read it back, and was done.
    const readOnly = ledgerOf(read("main.go"), write("go.mod"), read("go.mod")).evaluate(["artifact", "execution"], "", { runAfterChange: true });
    expect(readOnly).toMatchObject({ satisfied: false, missing: ["execution"] });
    expect(readOnly.instruction).toContain("You changed go.mod and the task asks for it to be run or tested");
    // Without the wording the same events pass, as before.
    expect(ledgerOf(read("main.go"), write("go.mod"), read("go.mod")).evaluate(["artifact", "execution"], "").satisfied).toBe(true);
    // A run before the change does not count; one after it does.
    expect(ledgerOf(run("go run .", 0), write("main.go"), read("main.go")).evaluate(["artifact", "execution"], "", { runAfterChange: true }).satisfied).toBe(false);
    expect(ledgerOf(write("main.go"), read("main.go"), run("go run . -upper", 0)).evaluate(["artifact", "execution"], "", { runAfterChange: true }).satisfied).toBe(true);
  });

  it("a report or document written from a run needs no second run; a command that made the change is the run", () => {
    expect(ledgerOf(run("node math.test.js", 0), write("report.md"), read("report.md")).evaluate(["artifact", "execution"], "", { runAfterChange: true }).satisfied).toBe(true);
    const script = event("run_command", { command: "node write-rules.js" }, { metadata: { exit_code: 0 }, changed_paths: ["GEMINI.md", "out.js"] });
    expect(ledgerOf(script, read("out.js")).evaluate(["artifact", "execution"], "", { runAfterChange: true }).satisfied).toBe(true);
  });
});

describe("a question's answer (answerRequired)", () => {
  it("an empty completion answers no question, whatever the run inspected or changed; any text is judged by the other rules as before", () => {
    // Measured: SmolLM2 asked "Which environment variable sets the folder that build.sh writes its
    // output to …?" edited src/readme.md, read it back, and its empty completion was accepted.
    const edited = () => ledgerOf(read("src/readme.md"), write("src/readme.md"), read("src/readme.md"));
    const empty = edited().evaluate(["execution"], "  \n", { answerRequired: true });
    expect(empty).toMatchObject({ satisfied: false, missing: ["answer"] });
    expect(empty.instruction).toContain("The task is a question and your completion is empty");
    expect(ledgerOf(read("build.sh")).evaluate(["execution"], "", { answerRequired: true }).missing).toEqual(["answer"]);
    expect(ledgerOf(read("build.sh")).evaluate(["execution"], "OUT_DIR, default dist", { answerRequired: true }).satisfied).toBe(true);
    // Nothing inspected: both are missing.
    expect(ledgerOf().evaluate(["execution"], "", { answerRequired: true }).missing).toEqual(["execution", "answer"]);
    // A question that needs no inspection still needs its answer.
    expect(ledgerOf().evaluate([], "", { answerRequired: true }).missing).toEqual(["answer"]);
    // Without the option (a change task), an empty completion is judged by the events alone, as before.
    expect(edited().evaluate(["execution"], "").satisfied).toBe(true);
  });
});

describe("the code_needs_run setting (codeNeedsRun)", () => {
  it("a change to code or a build file is verified by a run or a clean type check after it, not by a read back; documents as before; off, the later read", () => {
    // Measured: Gemma and SmolLM2 edited go.mod on "… Fix words.go.", read it back, and were done.
    const readBack = () => ledgerOf(read("go.mod"), write("go.mod"), read("go.mod"));
    expect(readBack().evaluate(["artifact"], "").satisfied).toBe(true);
    const strict = readBack().evaluate(["artifact"], "", { codeNeedsRun: true });
    expect(strict).toMatchObject({ satisfied: false, missing: ["artifact"] });
    expect(strict.instruction).toContain("You changed code (go.mod) and only looked at it since");
    expect(ledgerOf(write("words.go"), read("words.go"), run("go test ./...", 0)).evaluate(["artifact"], "", { codeNeedsRun: true }).satisfied).toBe(true);
    const typeChecked = () => event("diagnostics", { path: "a.ts" }, { metadata: { errors: 0, type_checked: true } });
    expect(ledgerOf(write("a.ts"), typeChecked()).evaluate(["artifact"], "", { codeNeedsRun: true }).satisfied).toBe(true);
    expect(ledgerOf(write("notes.md"), read("notes.md")).evaluate(["artifact"], "", { codeNeedsRun: true }).satisfied).toBe(true);
    // A run before the change does not count.
    expect(ledgerOf(run("go test ./...", 1), write("words.go"), read("words.go")).evaluate(["artifact"], "", { codeNeedsRun: true }).satisfied).toBe(false);
  });
});
