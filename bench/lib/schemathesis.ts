import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The schemathesis the API fuzz runs: one exact version, so two runs' counts compare. */
export const schemathesisVersion = "4.32.5";

/** The model cache (`$AIDE_MODEL_CACHE`, else `~/.cache/aide/models`), where the venv lives beside llama-server's. */
function cacheDir(): string {
  const set = process.env.AIDE_MODEL_CACHE;
  return set !== undefined && set !== "" ? set : join(process.env.HOME || homedir(), ".cache", "aide", "models");
}

function versionOf(binary: string): string | undefined {
  if (!existsSync(binary)) return undefined;
  const run = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 60_000 });
  return /version ([\d.]+)/.exec(run.stdout ?? "")?.[1];
}

/**
 * The `schemathesis` binary of `<cache>/schemathesis-venv`, installed there (`python3 -m venv`,
 * then `pip install schemathesis==<version>` from PyPI) when it is missing or another version.
 * Returns its path; throws with pip's last words when the install fails.
 */
export function ensureSchemathesis(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): string {
  const venv = join(cacheDir(), "schemathesis-venv");
  const binary = join(venv, "bin", "schemathesis");
  if (versionOf(binary) === schemathesisVersion) return binary;
  const python = process.env.AIDE_BENCH_PYTHON ?? "python3";
  if (!existsSync(join(venv, "bin", "python"))) {
    log(`schemathesis: creating ${venv}`);
    const made = spawnSync(python, ["-m", "venv", venv], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`${python} -m venv ${venv}: ${(made.stderr ?? "").slice(-400)}`);
  }
  log(`schemathesis: pip install schemathesis==${schemathesisVersion} into ${venv}`);
  const installed = spawnSync(join(venv, "bin", "python"), ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", `schemathesis==${schemathesisVersion}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (installed.status !== 0) throw new Error(`pip install schemathesis==${schemathesisVersion}: ${((installed.stdout ?? "") + (installed.stderr ?? "")).slice(-600)}`);
  const version = versionOf(binary);
  if (version !== schemathesisVersion) throw new Error(`schemathesis installed but reports version ${version ?? "none"}`);
  return binary;
}
