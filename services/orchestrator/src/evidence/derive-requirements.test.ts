import { describe, expect, it } from "vitest";
import { asksAboutFailure, asksQuestion, deriveEvidenceRequirements } from "./derive-requirements.js";

describe("deriveEvidenceRequirements", () => {
  it.each([
    ["Create a file hello.txt containing hi", ["artifact"]],
    ["Fix the failing test in sum.test.js", ["artifact", "execution"]],
    ["Run the test suite", ["execution"]],
    ["Analyze the log for errors", ["execution"]],
    ["Write a Python script that prints the first 10 primes", ["artifact", "source_file"]],
    ["Run the benchmark and write a report with the results", ["artifact", "execution", "report", "measurements"]],
    ["Compare the speed of quicksort and mergesort on 1e6 items", ["execution", "measurements"]],
    ["What does parseToolCalls do?", ["execution"]],
    ["Explain the architecture of this repo", ["execution"]],
    ["Where is the config in src/config.ts loaded?", ["execution"]],
    ["What is a monad?", []],
    ["Explain recursion to me", []],
    ["List the files in src", ["execution"]],
    ["How is the config loaded? Then fix the bug in it", ["artifact"]],
    ["hello", []],
    // Issue 12: the default is strict; a defect report without a verb needs a change and its check.
    ["uppercase letters vanish when lowercase is false", ["artifact"]],
    ["test/slug.test.js fails", ["artifact", "execution"]],
    ["src/slug.ts", ["artifact"]],
    ["Can you fix the bug in src/slug.ts?", ["artifact"]],
    ["Why do uppercase letters vanish when lowercase is false?", ["execution"]],
    ["Behebe den Fehler in slug.ts", ["artifact"]],
    ["Pourquoi le test échoue-t-il ?", ["execution"]],
    ["¿Qué es una mónada?", []],
    ["Ejecuta las pruebas", ["execution"]],
    // A file named report.* is not a request for a report; comparing code is not a measurement.
    ["read_rows in report.py breaks on rows whose quoted fields contain commas. Fix it.", ["artifact"]],
    ["output_path('out', 'report.txt') returns 'outreport.txt'. Fix paths.py.", ["artifact"]],
    ["Add memoize(fn) to src/memo.js (compare arguments with JSON.stringify)", ["artifact"]],
    ["Compare the memory use of both parsers", ["execution", "measurements"]],
    ["Run the tests and write the results to a report", ["artifact", "execution", "report"]],
    // A sentence that only forbids changes leaves a question a question.
    ["Which function checks emails, and in which file is it defined? Do not change anything.", ["execution"]],
    ["Wo ist die Funktion parse definiert? Ändere nichts.", ["execution"]],
    ["Don't change the API. Fix the parser in src/parse.ts", ["artifact"]],
    ["Do not change anything", ["artifact"]],
  ])("%s → %j", (task, expected) => {
    expect(deriveEvidenceRequirements(task)).toEqual(expected);
  });
});

describe("asksAboutFailure", () => {
  it.each([
    ["Why does the test in math.test.js fail?", true],
    ["Why is `node math.test.js` failing?", true],
    ["Warum gibt es einen Fehler in math.test.js?", true],
    ["What does math.js export?", false],
    ["Fix the failing test in math.test.js", false],
    ["Why does the test fail? Fix it.", false],
  ])("%s → %s", (task, expected) => {
    expect(asksAboutFailure(task)).toBe(expected);
  });
});

describe("asksQuestion", () => {
  it.each([
    ["Which environment variable sets the folder that build.sh writes its output to, and what is the default?", true],
    ["On which port does the server in this project listen when nothing is configured? Answer with the number.", true],
    ["Where is parseDuration defined?", true],
    ["Fix words.go.", false],
    ["Can you fix the failing test in sum.test.js?", false],
    ["hi", false],
  ])("%s -> %s", (task, expected) => {
    expect(asksQuestion(task)).toBe(expected);
  });
});
