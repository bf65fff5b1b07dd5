/**
 * External-repository tasks (a user's own suite): refused without --fetch; with it, the repository
 * is cloned once into a bare cache, each attempt gets a fresh checkout of the task's commit with
 * its patch applied and no remote, and the task's test command is the hidden check (in bubblewrap).
 * The repository is a real git repository on disk, reached by a file: URL (no network).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutExternalProject, fetchExternalSource } from "../src/eval/external-project.js";
import { EvalTaskError, loadEvalTasks } from "../src/eval/load-eval-tasks.js";
import { runHiddenCheck } from "../src/eval/run-hidden-check.js";

const scratch = mkdtempSync(join(tmpdir(), "aide-eval-external-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) => {
  const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
};

let commit = "";
let later = "";
const upstream = join(scratch, "upstream");
const tasksDir = join(scratch, "tasks");

beforeAll(() => {
  mkdirSync(upstream);
  git(upstream, "init", "--quiet", "-b", "main");
  writeFileSync(join(upstream, "add.sh"), "#!/bin/sh\necho $(( $1 - $2 ))\n");
  git(upstream, "add", ".");
  git(upstream, "commit", "--quiet", "-m", "add (buggy)");
  commit = git(upstream, "rev-parse", "HEAD");
  writeFileSync(join(upstream, "README"), "later\n");
  git(upstream, "add", ".");
  git(upstream, "commit", "--quiet", "-m", "a later commit the task does not use");
  later = git(upstream, "rev-parse", "HEAD");
  const taskDir = join(tasksDir, "sh-external-add");
  mkdirSync(taskDir, { recursive: true });
  // The task's patch adds the test the hidden check runs.
  writeFileSync(
    join(taskDir, "add-test.patch"),
    ["diff --git a/test.sh b/test.sh", "new file mode 100644", "--- /dev/null", "+++ b/test.sh", "@@ -0,0 +1,2 @@", "+#!/bin/sh", '+[ "$(sh add.sh 2 3)" = 5 ]', ""].join("\n"),
  );
  writeFileSync(
    join(taskDir, "task.json"),
    JSON.stringify({
      id: "sh-external-add",
      language: "shell",
      category: "bug",
      difficulty: "easy",
      prompt: "sh add.sh 2 3 prints -1 instead of 5. Fix add.sh.",
      source: { repository: pathToFileURL(upstream).href, commit, patch: "add-test.patch", test_command: ["sh", "test.sh"] },
    }),
  );
});

describe("external-repository eval tasks", () => {
  it("are refused without --fetch, naming the repository and the flag", () => {
    expect(() => loadEvalTasks(tasksDir, [])).toThrow(EvalTaskError);
    expect(() => loadEvalTasks(tasksDir, [])).toThrow(/clones file:.*upstream; run it with aide eval run --fetch/);
  });

  it("check out the task's commit with its patch and no remote; the test command is the hidden check", async () => {
    const [task] = loadEvalTasks(tasksDir, [], { fetch: true });
    const sources = join(scratch, "run", "sources");
    const cache = fetchExternalSource(task.id, task.source!, sources);
    // A second fetch reuses the cache (same folder, no second clone).
    expect(fetchExternalSource(task.id, task.source!, sources)).toBe(cache);

    const untouched = join(scratch, "run", "work", "untouched");
    mkdirSync(untouched, { recursive: true });
    checkoutExternalProject(task, join(tasksDir, task.id), cache, untouched);
    expect(git(untouched, "rev-parse", "HEAD")).toBe(commit);
    expect(git(untouched, "remote")).toBe("");
    expect(existsSync(join(untouched, "README"))).toBe(false); // the later commit is not checked out
    expect(readFileSync(join(untouched, "test.sh"), "utf8")).toContain("sh add.sh 2 3");
    const check = { task, taskDir: join(tasksDir, task.id), answer: undefined, scratch: join(scratch, "run"), hidden: [], nodePath: "" };
    const failing = await runHiddenCheck({ ...check, workspace: untouched });
    expect(failing.passed).toBe(false);

    const fixed = join(scratch, "run", "work", "fixed");
    mkdirSync(fixed, { recursive: true });
    checkoutExternalProject(task, join(tasksDir, task.id), cache, fixed);
    writeFileSync(join(fixed, "add.sh"), "#!/bin/sh\necho $(( $1 + $2 ))\n");
    const passing = await runHiddenCheck({ ...check, workspace: fixed });
    expect(passing).toMatchObject({ passed: true, exit_code: 0 });
    expect(later).not.toBe(commit);
  });

  it("a commit the repository does not have fails at once with a message naming it", () => {
    const [task] = loadEvalTasks(tasksDir, [], { fetch: true });
    const missing = "0".repeat(40);
    expect(() => fetchExternalSource(task.id, { ...task.source!, commit: missing }, join(scratch, "other-sources"))).toThrow(
      new RegExp(`sh-external-add: (fetching ${missing}|.*has no commit ${missing})`),
    );
  });
});
