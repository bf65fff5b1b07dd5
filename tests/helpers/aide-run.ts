import { spawn } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./service-process.js";

/** The compiled cli (`cli/dist/main.js`, run `tsc -b` first). */
export const aideMain = join(repoRoot, "cli", "dist", "main.js");

/** `aide run ARGS` as a CI job runs it: no TTY (stdin closed, stdout and stderr pipes), resolved at exit. */
export function aideRun(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [aideMain, "run", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}
