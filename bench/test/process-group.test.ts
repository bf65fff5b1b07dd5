import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProcessGroup } from "../lib/process-group.js";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("process-group", () => {
  it("kills the child and what it started when the time runs out, and settles only after", async () => {
    const dir = mkdtempSync(join(tmpdir(), "process-group-"));
    try {
      const pidFile = join(dir, "grandchild.pid");
      // A shell that starts a long sleep in the background (the grandchild) and waits on it.
      const result = await runProcessGroup("bash", ["-c", `sleep 300 & echo $! > ${pidFile}; echo started; wait`], { env: process.env, timeoutMs: 1500, logFile: join(dir, "log") });
      expect(result.timedOut).toBe(true);
      expect(result.code === null || result.code !== 0).toBe(true);
      expect(readFileSync(join(dir, "log"), "utf8")).toContain("started");
      const grandchild = Number(readFileSync(pidFile, "utf8"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(alive(grandchild)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops at the caller's signal and reports a command that cannot start", async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const stopped = await runProcessGroup("sleep", ["300"], { env: process.env, signal: abort.signal });
    expect(stopped.aborted).toBe(true);
    expect(stopped.wallMs).toBeLessThan(10_000);
    const missing = await runProcessGroup("/nonexistent/command", [], { env: process.env });
    expect(missing.startError).toBeDefined();
    expect(existsSync("/nonexistent/command")).toBe(false);
  });
});
