/**
 * Which toolchain a task's hidden check needs beyond node, python3 and bash (Go, cargo, javac,
 * pytest), and whether it runs here as the check will run it: with HOME another folder, the
 * toolchains under the real home found through RUSTUP_HOME and PYENV_ROOT. A task whose
 * toolchain does not run is skipped by the suite with this reason, never passed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EvalTask } from "@aide/contracts";
import { toolchainHomes } from "@aide/runtime";

export interface Toolchain {
  name: "go" | "cargo" | "javac" | "pytest";
  /** Why it cannot run here; undefined when it runs. */
  absent?: string;
}

const probes: Record<Toolchain["name"], string[]> = {
  go: ["go", "version"],
  cargo: ["cargo", "--version"],
  javac: ["javac", "-version"],
  pytest: ["python3", "-m", "pytest", "--version"],
};
const found = new Map<Toolchain["name"], string | undefined>();

function absentReason(name: Toolchain["name"]): string | undefined {
  if (found.has(name)) return found.get(name);
  const home = mkdtempSync(join(tmpdir(), "aide-toolchain-probe-"));
  const [command, ...args] = probes[name];
  const result = spawnSync(command, args, {
    cwd: home,
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, XDG_CONFIG_HOME: "/dev/null/aide-no-config", ...toolchainHomes().env },
  });
  // go's telemetry writer outlives `go version` and fills $XDG_CONFIG_HOME/go unless that cannot exist
  // (GOTELEMETRY is not read from the environment); the removal retries all the same.
  rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  const reason = result.status === 0 ? undefined : `${probes[name].join(" ")} does not run here (${result.error?.message ?? `${result.stderr}`.trim().split("\n")[0] ?? `exit ${result.status}`})`;
  found.set(name, reason);
  return reason;
}

/** The toolchain `task` (in `taskDir`) needs, or undefined for node/python3/bash alone. */
export function toolchainOf(task: EvalTask, taskDir: string): Toolchain | undefined {
  const name: Toolchain["name"] | undefined = task.language === "go" ? "go" : task.language === "rust" ? "cargo" : task.language === "java" ? "javac" : usesPytest(taskDir) ? "pytest" : undefined;
  return name === undefined ? undefined : { name, absent: absentReason(name) };
}

function usesPytest(taskDir: string): boolean {
  try {
    return /\bpytest\b/.test(readFileSync(join(taskDir, "check", "check.sh"), "utf8"));
  } catch {
    return false;
  }
}
