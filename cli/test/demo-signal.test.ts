import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { aideMain } from "../../tests/helpers/aide-run.js";

/** Pids of processes whose command line names `marker` (the demo's own AIDE_HOME). */
function processesNaming(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function until(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) {
    for (const pid of processesNaming(home)) process.kill(pid, "SIGKILL");
    rmSync(home, { recursive: true, force: true });
  }
});

describe("aide demo stopped by a signal", () => {
  // Once while the stack is starting (nats-server up, services not yet), once during the session.
  for (const moment of ["nats-server running", "session started"] as const) {
    it(`stops nats-server and every service and exits 143 on SIGTERM (${moment})`, async () => {
      const home = mkdtempSync(join(tmpdir(), "aide-demo-signal-"));
      homes.push(home);
      const child = spawn(process.execPath, [aideMain, "demo", "--replay"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_HOME: home, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
      if (moment === "nats-server running") await until(() => processesNaming(join(home, "demo", "stack")).length > 0, "the demo's nats-server");
      else await until(() => /session \S+ · run/.test(stdout), `the session line (stdout so far: ${stdout})`);
      child.kill("SIGTERM");
      const code = await exited;
      expect(stderr).toContain("SIGTERM; stopping what started");
      expect(code).toBe(143);
      // Nothing of the demo's stack outlives it: nats-server runs with the stack's own config path.
      expect(processesNaming(join(home, "demo", "stack"))).toEqual([]);
    }, 180_000);
  }
});
