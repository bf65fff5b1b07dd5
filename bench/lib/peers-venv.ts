/**
 * The peers' Python environment: `aider-chat` and `mini-swe-agent` at pinned versions in one venv
 * in the model cache, `<cache>/peers-venv-<recipe>` (the recipe: the pins and the Python version,
 * so a new pin or interpreter gets a venv of its own). Installed only when missing: a venv is
 * complete once its marker file is written, after pip succeeded and both commands answer; one
 * without the marker (an install cut short) is removed and made again. When PyPI cannot be
 * reached the error says so, with pip's own words.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runProcessGroup } from "./process-group.js";

/** The versions compared against (the newest on PyPI when this bench was written). */
export const peerPackages = { "aider-chat": "0.86.2", "mini-swe-agent": "2.4.6" } as const;

export interface PeersVenv {
  dir: string;
  aider: string;
  mini: string;
  python: string;
  /** Whether this call installed it (false: it was there). */
  installed: boolean;
}

export class PeersInstallError extends Error {}

const markerName = "aide-peers.json";

/** Lines of pip's output that mean the index could not be reached (not a missing version). */
const unreachable =
  /NewConnectionError|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|ConnectTimeout|ReadTimeout|Max retries exceeded|No matching distribution found|Could not fetch URL/i;

export function peersVenvDir(cacheDir: string, pythonVersion: string): string {
  const pins = Object.entries(peerPackages)
    .map(([name, version]) => `${name}==${version}`)
    .join(" ");
  const recipe = createHash("sha256").update(`${pins} python ${pythonVersion}`).digest("hex").slice(0, 12);
  return join(cacheDir, `peers-venv-${recipe}`);
}

async function output(file: string, args: string[], signal?: AbortSignal, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; text: string }> {
  const result = await runProcessGroup(file, args, { env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", ...extraEnv }, timeoutMs: 1_800_000, signal });
  if (result.aborted) throw new PeersInstallError("stopped while installing the peers");
  return { code: result.startError !== undefined ? null : result.code, text: result.startError ?? result.tail };
}

function complete(dir: string): boolean {
  try {
    const marker = JSON.parse(readFileSync(join(dir, markerName), "utf8")) as { packages?: Record<string, string> };
    return JSON.stringify(marker.packages) === JSON.stringify(peerPackages) && existsSync(join(dir, "bin", "aider")) && existsSync(join(dir, "bin", "mini"));
  } catch {
    return false;
  }
}

/** The venv, installed first when missing (`python` makes it; `onStep` hears what is being done). */
export async function ensurePeersVenv(cacheDir: string, options: { python?: string; signal?: AbortSignal; onStep?: (line: string) => void } = {}): Promise<PeersVenv> {
  const python = options.python ?? "python3";
  const version = await output(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], options.signal);
  if (version.code !== 0) throw new PeersInstallError(`${python} does not run: ${version.text.trim()}`);
  const pythonVersion = version.text.trim().split("\n").pop() ?? "";
  const [major, minor] = pythonVersion.split(".").map(Number);
  if (major < 3 || (major === 3 && minor < 10)) throw new PeersInstallError(`aider-chat and mini-swe-agent need Python 3.10 or newer; ${python} is ${pythonVersion}`);
  const dir = peersVenvDir(cacheDir, pythonVersion);
  const venv = { dir, aider: join(dir, "bin", "aider"), mini: join(dir, "bin", "mini"), python: join(dir, "bin", "python") };
  if (complete(dir)) return { ...venv, installed: false };
  rmSync(dir, { recursive: true, force: true });
  options.onStep?.(
    `installing ${Object.entries(peerPackages)
      .map(([name, pin]) => `${name}==${pin}`)
      .join(" and ")} into ${dir} (a few minutes, once)`,
  );
  const made = await output(python, ["-m", "venv", dir], options.signal);
  if (made.code !== 0) throw new PeersInstallError(`could not make the venv ${dir}: ${made.text.trim().slice(-600)}`);
  const pins = Object.entries(peerPackages).map(([name, pin]) => `${name}==${pin}`);
  const pip = await output(venv.python, ["-m", "pip", "install", "--no-input", "--retries", "2", "--timeout", "30", ...pins], options.signal);
  if (pip.code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const said = pip.text.trim().split("\n").slice(-6).join("\n");
    if (unreachable.test(pip.text))
      throw new PeersInstallError(`PyPI cannot be reached, so ${pins.join(" and ")} cannot be installed (a machine without the network needs the venv made elsewhere). pip said:\n${said}`);
    throw new PeersInstallError(`pip could not install ${pins.join(" and ")}:\n${said}`);
  }
  for (const command of [venv.aider, venv.mini]) {
    // mini-swe-agent makes its config folder at import: the venv's own, not the person's.
    const answered = await output(command, ["--help"], options.signal, { MSWEA_GLOBAL_CONFIG_DIR: join(dir, "mini-config"), MSWEA_SILENT_STARTUP: "1" });
    if (answered.code !== 0) throw new PeersInstallError(`${command} --help failed after the install: ${answered.text.trim().slice(-600)}`);
  }
  writeFileSync(join(dir, markerName), `${JSON.stringify({ packages: peerPackages, python: pythonVersion, installed_at: new Date().toISOString() }, null, 2)}\n`);
  return { ...venv, installed: true };
}
