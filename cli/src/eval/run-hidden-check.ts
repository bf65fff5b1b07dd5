/**
 * Runs a task's hidden check after a session, as the truth about the outcome: in a fresh copy of
 * the workspace as the session left it (its `.aide` shadow repository left out), with the check's
 * files under `.eval-check/` and, for a question, the session's final answer in
 * `.eval-answer.txt`; inside bubblewrap without network, with aide's home hidden and the copy the
 * only writable place (and the run's build cache, when given); killed at the check's timeout with
 * its process group. Toolchains run offline: Go never fetches a module or a toolchain
 * (GOPROXY=off, GOTOOLCHAIN=local), cargo is given `--offline` by the tasks, and the toolchains
 * under the person's home are told where they live (RUSTUP_HOME, PYENV_ROOT), since HOME is the copy.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { evalAnswerFile, evalCheckFolder, type EvalTask } from "@aide/contracts";
import { toolchainHomes } from "@aide/runtime";

/** The test command of an external-repository task (it has no check block): as a check's default. */
const externalCheckTimeoutMs = 120_000;

export interface CheckOutcome {
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  /** The last 2,000 characters of the check's output. */
  output: string;
}

export interface HiddenCheckInput {
  task: EvalTask;
  taskDir: string;
  /** The workspace as the session left it. */
  workspace: string;
  /** The run's final result text (written for questions). */
  answer?: string;
  /** Where the fresh copy is made (removed afterwards). */
  scratch: string;
  /** Folders the check must not see (aide's home: tokens and credentials). */
  hidden: string[];
  /** aide's own node_modules, for TypeScript checks (NODE_PATH). */
  nodePath: string;
  /**
   * A folder the checks of one run share for build caches (Go's: without one, every Go check
   * compiles the standard library again, about a minute on two cores). Outside every workspace.
   */
  cacheDir?: string;
}

export async function runHiddenCheck(input: HiddenCheckInput): Promise<CheckOutcome> {
  const copy = mkdtempSync(join(input.scratch, `check-${input.task.id}-`));
  try {
    cpSync(input.workspace, copy, { recursive: true, filter: (source) => basename(source) !== ".aide" && !source.includes(`/${evalCheckFolder}`) });
    // An external-repository task may bring no check files: its test command lives in the repository.
    if (existsSync(join(input.taskDir, "check"))) cpSync(join(input.taskDir, "check"), join(copy, evalCheckFolder), { recursive: true });
    if (input.task.category === "question") writeFileSync(join(copy, evalAnswerFile), input.answer ?? "");
    const check = input.task.check ?? { command: input.task.source!.test_command, timeout_ms: externalCheckTimeoutMs };
    const goCache = input.cacheDir !== undefined ? join(input.cacheDir, "go-build") : undefined;
    if (goCache !== undefined) mkdirSync(goCache, { recursive: true });
    const args = [
      "--die-with-parent",
      "--new-session",
      "--unshare-net",
      "--unshare-pid",
      "--unshare-ipc",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      ...input.hidden.flatMap((path) => ["--tmpfs", path]),
      ...(goCache !== undefined ? ["--bind", goCache, goCache] : []),
      "--bind",
      copy,
      copy,
      "--chdir",
      copy,
      "--",
      ...check.command,
    ];
    const env = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: copy,
      LANG: "C.UTF-8",
      NODE_PATH: input.nodePath,
      ...toolchainHomes(process.env).env,
      GOTOOLCHAIN: "local",
      // go's telemetry writer outlives the command and fills $XDG_CONFIG_HOME/go (it raced the
      // clean-up of the check's home); GOTELEMETRY is not read from the environment, an
      // impossible config folder stops it.
      XDG_CONFIG_HOME: "/dev/null/aide-no-config",
      GOPROXY: "off",
      ...(goCache !== undefined ? { GOCACHE: goCache } : {}),
    };
    return await new Promise<CheckOutcome>((resolve) => {
      const child = spawn("bwrap", args, {
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let output = "";
      const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-2000));
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          /* gone */
        }
      }, check.timeout_ms);
      child.on("error", (error) => {
        clearTimeout(timer);
        resolve({ passed: false, exit_code: null, timed_out: false, output: `the check could not start: ${error.message}` });
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ passed: code === 0 && !timedOut, exit_code: code, timed_out: timedOut, output });
      });
    });
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
