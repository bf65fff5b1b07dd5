/** A real full disk for tests: a 2 MB tmpfs mounted at a folder (root only), and a filler that takes its last block. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** Mounts a 2 MB tmpfs at `dir`; returns why it cannot ("" when mounted). */
export function mountSmallDisk(dir: string): string {
  if (process.getuid?.() !== 0) return "not root";
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir], { stdio: "pipe" });
    return "";
  } catch (error) {
    return `mount failed: ${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim()}`;
  }
}

/** Fills the disk holding `dir` to the last block. */
export function fillDisk(dir: string): void {
  for (const [name, size] of [
    ["filler.bin", "64k"],
    ["filler-tail.bin", "512"],
  ] as const) {
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${join(dir, name)}`, `bs=${size}`], { stdio: "ignore" });
    } catch {
      // dd stops with "No space left on device": that is the point.
    }
  }
}
