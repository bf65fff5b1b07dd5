import { aideError } from "@aide/contracts";
import { spawn } from "node:child_process";

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started at all (absent, not executable). */
  spawnError?: Error;
}

/** Runs a program (pip, python, llama-server --version) to its end, collecting what it wrote. */
export function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<ProcessRun> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", (spawnError) => resolve({ code: null, stdout, stderr, spawnError }));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last meaningful lines a program wrote, for an error's detail (pip's own words, without its progress bars). */
export function outputTail(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("━"))
    .slice(-3)
    .join(" | ")
    .slice(0, 600);
}

/** Throws MODEL_PULL_NO_PIP unless `python -m pip` runs. */
export async function requirePip(python: string, env: NodeJS.ProcessEnv, model: string): Promise<void> {
  const probe = await runProcess(python, ["-m", "pip", "--version"], env);
  if (probe.code === 0) return;
  const why = probe.spawnError ? probe.spawnError.message : outputTail(probe.stderr || probe.stdout);
  throw aideError("MODEL_PULL_NO_PIP", { model, detail: `${python} -m pip: ${why}` });
}
