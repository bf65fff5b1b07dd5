/**
 * Language toolchains installed under the home directory: rustup's (`~/.rustup`, with its proxies
 * in `~/.cargo/bin`), pyenv's (`~/.pyenv`), binaries from `go install` (`~/go/bin`) or pip's
 * `~/.local/bin`. A sandbox that hides the home (the services' profiles) must bind these back
 * read-only to keep them usable, and one that gives its commands another HOME (the tools service's
 * commands, the eval's hidden checks) must say where their own files are: rustup's proxies look
 * for `$RUSTUP_HOME` (default `$HOME/.rustup`) and fail with "no default toolchain" without it.
 * The home itself is never one of the folders, nor anything outside it (already visible).
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

export interface ToolchainHomes {
  /** RUSTUP_HOME and PYENV_ROOT, set to where they are, whatever HOME a child gets. */
  env: Record<string, string>;
  /** Folders under the home a sandbox hiding it binds back read-only (outermost only, existing). */
  folders: string[];
}

const inside = (path: string, parent: string) => {
  const rel = relative(parent, path);
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep) && !isAbsolute(rel);
};
const directory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

export function toolchainHomes(env: NodeJS.ProcessEnv = process.env): ToolchainHomes {
  const home = env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME.replace(/\/+$/, "") : undefined;
  const found: Record<string, string> = {};
  const roots: string[] = [];
  for (const [name, fallback] of [
    ["RUSTUP_HOME", ".rustup"],
    ["PYENV_ROOT", ".pyenv"],
  ] as const) {
    const given = env[name];
    const path = given !== undefined && isAbsolute(given) ? given : home !== undefined ? `${home}/${fallback}` : undefined;
    if (path === undefined || !directory(path)) continue;
    found[name] = path;
    roots.push(path);
  }
  // PATH entries under the home (~/.cargo/bin, ~/go/bin, ~/.local/bin): the bin folder only, never its parent (~/.cargo holds credentials).
  for (const entry of (env.PATH ?? "").split(":")) if (isAbsolute(entry) && existsSync(entry) && directory(entry)) roots.push(entry.replace(/\/+$/, ""));
  const underHome = [...new Set(roots)].filter((path) => home !== undefined && inside(path, home));
  const folders = underHome.filter((path) => !underHome.some((other) => other !== path && inside(path, other))).sort();
  return { env: found, folders };
}
