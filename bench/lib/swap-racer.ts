import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The attack on a check-then-open jail: a process inside the workspace swaps `<workspace>/swap` between a real
 * directory and a symlink to a directory outside, as fast as it can, in its own process (so the
 * service under test and the racer really run at the same time). The tools
 * service's race test (services/tools/test/jail-race.test.ts) uses this same racer.
 */
const script = `
const fs = require("node:fs");
const [swap, real, link] = process.argv.slice(1);
let swaps = 0;
let stopping = false;
process.on("SIGTERM", () => { stopping = true; });
let strays = 0;
const move = (from, to) => { try { fs.renameSync(from, to); return true; } catch { return false; } };
// A write may have created a real \`swap\` folder while neither of ours was there: move it aside.
const clearStray = () => { try { if (!fs.lstatSync(swap).isSymbolicLink() && fs.existsSync(real)) fs.renameSync(swap, swap + ".stray" + strays++); } catch {} };
const step = () => {
  for (let i = 0; i < 200 && !stopping; i += 1) {
    if (!move(real, swap)) { clearStray(); continue; }
    move(swap, real);
    if (!move(link, swap)) { clearStray(); continue; }
    move(swap, link);
    swaps += 1;
  }
  if (stopping) {
    try { fs.renameSync(swap, fs.lstatSync(swap).isSymbolicLink() ? link : real); } catch {}
    process.stdout.write(String(swaps));
    process.exit(0);
  }
  setImmediate(step);
};
process.stdout.write("ready\\n");
step();
`;

export const secretText = "TOP-SECRET-OUTSIDE-42";

export interface SwapRacer {
  /** Stops the racer, puts `swap.real` and `swap.link` back, and says how many full swaps it did. */
  stop(): Promise<number>;
}

/** Lays out `swap.real/` (inside, with file.txt) and `swap.link` → `outside` (with the secret). */
export function prepareSwap(workspace: string, outside: string): void {
  mkdirSync(join(workspace, "swap.real"), { recursive: true });
  writeFileSync(join(workspace, "swap.real", "file.txt"), "inside\n");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "file.txt"), `${secretText}\n`);
  writeFileSync(join(outside, `${secretText}.txt`), `${secretText}\n`);
  symlinkSync(outside, join(workspace, "swap.link"));
}

export async function startSwapRacer(workspace: string): Promise<SwapRacer> {
  const child = spawn(process.execPath, ["-e", script, join(workspace, "swap"), join(workspace, "swap.real"), join(workspace, "swap.link")], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => output.includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`racer exited with ${code}`)));
  });
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
      return Number(output.replace("ready\n", ""));
    },
  };
}

/** Every entry under `root`, recursively, symlinks not followed. */
export function listTree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      out.push(prefix + entry.name);
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
    }
  };
  walk(root, "");
  return out.sort();
}
