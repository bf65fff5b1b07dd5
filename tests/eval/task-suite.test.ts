/**
 * The `aide eval` task suite is itself tested: every task is valid data, its project does not
 * contain its hidden check or its solution, and its hidden check fails on the untouched project
 * and passes on the reference solution. Checks run as real processes (node, python3, bash) in
 * fresh copies, as the runner will run them after a session. The tasks whose check needs a
 * compiler or pytest (Go, Rust, Java, pytest) are proven in toolchain-tasks.test.ts, through the
 * runner's own sandboxed check.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EvalTaskSchema, evalAnswerFile, evalCheckFolder, type EvalTask } from "@aide/contracts";
import { toolchainOf } from "./task-toolchain.js";

const repo = resolve(import.meta.dirname, "../..");
const tasksDir = join(repo, "eval", "tasks");
const scratch = mkdtempSync(join(tmpdir(), "aide-eval-suite-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ids = readdirSync(tasksDir).sort();
const load = (id: string): EvalTask => EvalTaskSchema.parse(JSON.parse(readFileSync(join(tasksDir, id, "task.json"), "utf8")));

function files(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]));
}

/**
 * A fresh copy of the project, optionally with the solution (or, for an instructions task, the
 * unguided solution: `unguided/`) over it, and the hidden check beside it; returns the check's exit code.
 */
function runCheck(id: string, task: EvalTask, over: boolean | "unguided"): { status: number | null; output: string } {
  const overlay = over === "unguided" ? "unguided" : over ? "solution" : undefined;
  const copy = mkdtempSync(join(scratch, `${id}-${overlay ?? "untouched"}-`));
  cpSync(join(tasksDir, id, "project"), copy, { recursive: true });
  if (overlay !== undefined) cpSync(join(tasksDir, id, overlay), copy, { recursive: true });
  cpSync(join(tasksDir, id, "check"), join(copy, evalCheckFolder), { recursive: true });
  const [command, ...args] = task.check!.command;
  const result = spawnSync(command, args, {
    cwd: copy,
    timeout: task.check!.timeout_ms,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: copy, LANG: "C.UTF-8", NODE_PATH: join(repo, "node_modules") },
    encoding: "utf8",
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.slice(-2000) };
}

describe("the eval task suite", () => {
  it("has at least 50 tasks across JavaScript/TypeScript, Python, shell, Go, Rust and Java, in every category", () => {
    const tasks = ids.map(load);
    expect(tasks.length).toBeGreaterThanOrEqual(50);
    const languages = new Set(tasks.map((task) => task.language));
    for (const language of ["javascript", "typescript", "python", "shell", "go", "rust", "java"]) expect(languages).toContain(language);
    const categories = new Set(tasks.map((task) => task.category));
    for (const category of ["bug", "feature", "refactor", "failing-test", "question"]) expect(categories).toContain(category);
  });

  it("refuses a task that does not match the schema, naming the field", () => {
    const bad = EvalTaskSchema.safeParse({ id: "Bad Id", language: "cobol", category: "question", difficulty: "easy", prompt: "short" });
    expect(bad.success).toBe(false);
    const fields = bad.error!.issues.map((issue) => issue.path.join("."));
    expect(fields).toEqual(expect.arrayContaining(["id", "language", "prompt"]));
  });

  for (const id of ids) {
    describe(id, () => {
      const task = load(id);
      it("is valid, named after its folder, and its project holds neither its check nor its solution", () => {
        expect(task.id).toBe(id);
        const project = files(join(tasksDir, id, "project"));
        expect(project.length).toBeGreaterThan(0);
        expect(project.some((file) => file.startsWith(`${evalCheckFolder}/`) || file === evalAnswerFile)).toBe(false);
        expect(files(join(tasksDir, id, "check")).length).toBeGreaterThan(0);
        expect(files(join(tasksDir, id, "solution")).length).toBeGreaterThan(0);
        if (task.category === "question") expect(files(join(tasksDir, id, "solution"))).toEqual([evalAnswerFile]);
      });
      const unguided = existsSync(join(tasksDir, id, "unguided"));
      if (unguided) {
        // An instructions task (the eval's instructions arm): what it needs is in its AGENTS.md,
        // and the same change made without it (unguided/) fails the check.
        it("is an instructions task: its project has an AGENTS.md, its unguided solution differs from the reference", () => {
          const agents = readFileSync(join(tasksDir, id, "project", "AGENTS.md"), "utf8");
          expect(
            agents.split("\n").some((line) => line.startsWith("- ")),
            "AGENTS.md states its rules as '- ' lines",
          ).toBe(true);
          expect(files(join(tasksDir, id, "unguided")).length).toBeGreaterThan(0);
        });
      }
      // A check that compiles or needs pytest is proven in toolchain-tasks.test.ts instead.
      if (toolchainOf(task, join(tasksDir, id)) !== undefined) return;
      if (unguided) {
        it("its hidden check fails on the unguided solution (the change made without the AGENTS.md)", () => {
          const result = runCheck(id, task, "unguided");
          expect(result.status, result.output).not.toBe(0);
          expect(result.status, `the check crashed or timed out rather than failing: ${result.output}`).not.toBeNull();
        });
      }
      it("its hidden check fails on the untouched project", () => {
        const result = runCheck(id, task, false);
        expect(result.status, result.output).not.toBe(0);
        expect(result.status, `the check crashed or timed out rather than failing: ${result.output}`).not.toBeNull();
      });
      it("its hidden check passes on the reference solution", () => {
        const result = runCheck(id, task, true);
        expect(result.status, result.output).toBe(0);
      });
    });
  }
});
