import { describe, expect, it } from "vitest";
import { deriveEvidenceRequirements } from "./derive-requirements.js";

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
  ])("%s → %j", (task, expected) => {
    expect(deriveEvidenceRequirements(task)).toEqual(expected);
  });
});
