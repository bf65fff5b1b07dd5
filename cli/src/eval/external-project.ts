/**
 * Projects of external-repository tasks (a user's own suite: `source` in task.json): the
 * repository is cloned once into a bare cache under the run's sources folder, the commit fetched
 * when the clone lacks it, and each attempt gets a fresh checkout of that commit with the task's
 * patch applied. Runs only when the person asked for it (`aide eval run --fetch`); never in tests
 * against the network (they clone a local repository by a file: URL).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EvalTask } from "@aide/contracts";
import { EvalTaskError } from "./load-eval-tasks.js";

type Source = NonNullable<EvalTask["source"]>;

/** How long one git step may take (a clone of a large repository included). */
const gitTimeoutMs = 10 * 60_000;

function git(args: string[], what: string, cwd?: string): string {
  const result = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    timeout: gitTimeoutMs,
    killSignal: "SIGKILL",
    // No prompt for credentials (a private repository fails with git's message instead of waiting).
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "/bin/false", LC_ALL: "C" },
  });
  if (result.error) throw new EvalTaskError(`${what}: ${result.error.message}`);
  if (result.status !== 0) throw new EvalTaskError(`${what}: ${(result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ")}`);
  return result.stdout;
}

const hasCommit = (cache: string, commit: string) => spawnSync("git", ["--git-dir", cache, "cat-file", "-e", `${commit}^{commit}`], { timeout: gitTimeoutMs }).status === 0;

/** The bare cache holding the task's commit (cloned, or fetched into, once per repository). */
export function fetchExternalSource(taskId: string, source: Source, sourcesDir: string): string {
  const cache = join(sourcesDir, `${createHash("sha256").update(source.repository).digest("hex").slice(0, 16)}.git`);
  if (!existsSync(cache)) {
    mkdirSync(sourcesDir, { recursive: true });
    git(["clone", "--bare", "--quiet", "--", source.repository, cache], `${taskId}: cloning ${source.repository}`);
  }
  if (!hasCommit(cache, source.commit)) {
    git(["--git-dir", cache, "fetch", "--quiet", "origin", source.commit], `${taskId}: fetching ${source.commit} from ${source.repository}`);
    if (!hasCommit(cache, source.commit)) throw new EvalTaskError(`${taskId}: ${source.repository} has no commit ${source.commit}`);
  }
  return cache;
}

/** A fresh checkout of the task's commit in `workspace` (an empty folder), the task's patch applied. */
export function checkoutExternalProject(task: EvalTask, taskDir: string, cache: string, workspace: string): void {
  const source = task.source!;
  git(["clone", "--quiet", "--no-checkout", "--", cache, workspace], `${task.id}: copying the cached clone`);
  git(["checkout", "--quiet", "--detach", source.commit], `${task.id}: checking out ${source.commit}`, workspace);
  // The clone's origin is the runner's cache, which the session cannot see: no remote at all.
  git(["remote", "remove", "origin"], `${task.id}: detaching the checkout from the cache`, workspace);
  if (source.patch !== undefined) {
    const patch = join(taskDir, source.patch);
    if (!existsSync(patch)) throw new EvalTaskError(`${task.id}: the patch ${source.patch} is not in ${taskDir}`);
    git(["apply", "--whitespace=nowarn", patch], `${task.id}: applying ${source.patch}`, workspace);
  }
}
