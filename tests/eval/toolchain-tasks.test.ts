/**
 * The suite's Go, Rust, Java and pytest tasks, proven the way `aide eval` judges them: each hidden
 * check runs through the runner's own `runHiddenCheck` (bubblewrap, no network, HOME the copy, one
 * Go build cache shared by the checks as in one run) and fails on the untouched project, for the
 * task's reason and not a missing toolchain, and passes on the reference solution. A separate file
 * from task-suite.test.ts because these compile: its time is the toolchains' (the first Go check
 * compiles the standard library). A task whose toolchain does not run here is skipped, saying why.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EvalTaskSchema, type EvalTask } from "@aide/contracts";
import { runHiddenCheck } from "../../cli/src/eval/run-hidden-check.js";
import { toolchainOf } from "./task-toolchain.js";

const repo = resolve(import.meta.dirname, "../..");
const tasksDir = join(repo, "eval", "tasks");
const scratch = mkdtempSync(join(tmpdir(), "aide-eval-toolchains-"));
const cacheDir = join(scratch, "caches");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const load = (id: string): EvalTask => EvalTaskSchema.parse(JSON.parse(readFileSync(join(tasksDir, id, "task.json"), "utf8")));
const tasks = readdirSync(tasksDir)
  .sort()
  .map((id) => ({ id, task: load(id), toolchain: toolchainOf(load(id), join(tasksDir, id)) }))
  .filter((entry) => entry.toolchain !== undefined);
/** What a check prints when its toolchain, not the task, failed. */
const toolchainMissing = /command not found|could not choose a version|no default is configured|cannot find GOROOT|go: downloading|GOPROXY=off|No module named pytest/;

/** The check on the untouched project, on the reference solution, or on an instructions task's unguided solution. */
async function check(id: string, task: EvalTask, over: boolean | "unguided") {
  const overlay = over === "unguided" ? "unguided" : over ? "solution" : undefined;
  const workspace = mkdtempSync(join(scratch, `${id}-${overlay ?? "untouched"}-`));
  cpSync(join(tasksDir, id, "project"), workspace, { recursive: true });
  if (overlay !== undefined) cpSync(join(tasksDir, id, overlay), workspace, { recursive: true });
  return runHiddenCheck({ task, taskDir: join(tasksDir, id), workspace, scratch, hidden: [], nodePath: join(repo, "node_modules"), cacheDir });
}

describe("the suite's toolchain tasks, judged as aide eval judges them", () => {
  it("has at least 8 Go, 6 Rust and 4 Java tasks and 3 pytest-based Python tasks", () => {
    const count = (name: string) => tasks.filter((entry) => entry.toolchain!.name === name).length;
    expect(count("go"), "Go tasks").toBeGreaterThanOrEqual(8);
    expect(count("cargo"), "Rust tasks").toBeGreaterThanOrEqual(6);
    expect(count("javac"), "Java tasks").toBeGreaterThanOrEqual(4);
    expect(count("pytest"), "pytest-based Python tasks").toBeGreaterThanOrEqual(3);
  });

  for (const { id, task, toolchain } of tasks) {
    const absent = toolchain!.absent;
    describe(absent === undefined ? `${id} (${toolchain!.name})` : `${id} — skipped: ${absent}`, () => {
      it.skipIf(absent !== undefined)("its hidden check fails on the untouched project, for the task's reason", { timeout: 300_000 }, async () => {
        const outcome = await check(id, task, false);
        expect(outcome.timed_out, outcome.output).toBe(false);
        expect(outcome.exit_code, outcome.output).not.toBe(0);
        expect(outcome.exit_code, outcome.output).not.toBeNull();
        expect(outcome.output).not.toMatch(toolchainMissing);
      });
      it.skipIf(absent !== undefined)("its hidden check passes on the reference solution", { timeout: 300_000 }, async () => {
        const outcome = await check(id, task, true);
        expect(outcome.passed, outcome.output).toBe(true);
      });
      // An instructions task: the change made without its AGENTS.md fails, and not for the toolchain.
      if (existsSync(join(tasksDir, id, "unguided")))
        it.skipIf(absent !== undefined)("its hidden check fails on the unguided solution (instructions tasks)", { timeout: 300_000 }, async () => {
          const outcome = await check(id, task, "unguided");
          expect(outcome.timed_out, outcome.output).toBe(false);
          expect(outcome.exit_code, outcome.output).not.toBe(0);
          expect(outcome.exit_code, outcome.output).not.toBeNull();
          expect(outcome.output).not.toMatch(toolchainMissing);
        });
    });
  }
});
