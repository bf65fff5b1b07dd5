import { realpathSync } from "node:fs";
import { execaSync } from "execa";

/**
 * The real path of `name` on this process's PATH (inside the service's sandbox, what its children
 * would run), when it is there and answers `versionArgs`; undefined otherwise.
 */
export function findProgram(name: string, versionArgs: readonly string[] = ["--version"], env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return undefined;
  try {
    const found = execaSync("sh", ["-c", `command -v ${name}`], { reject: false, timeout: 5000, env, extendEnv: false });
    const path = String(found.stdout).trim();
    if (found.exitCode !== 0 || !path.startsWith("/")) return undefined;
    return execaSync(path, [...versionArgs], { reject: false, timeout: 10_000, env, extendEnv: false }).exitCode === 0 ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}
