import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@aide/runtime";
import { createSandbox, type Sandbox } from "../src/index.js";
import { sandboxEnvironment } from "../src/sandbox/sandbox-environment.js";
import { cgroupOf, cgroupUsable, hostProcessesWith } from "./host-processes.js";

const cgroupsUsable = cgroupUsable("pids") && cgroupUsable("memory");
if (!cgroupsUsable) console.warn("warm-shells.test: cgroup v1 pids/memory not writable here; commands run without groups, so no shell is made ahead and these tests are skipped");

/** Processes whose parent is one of `parents` and whose command line passes `matches`. */
function childrenOf(parents: readonly number[], matches: (cmdline: string) => boolean): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return parents.includes(parent) && matches(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** This process's spawn helpers (spawn-helper.ts): they fork the shells made ahead. */
export function spawnHelpers(): number[] {
  return childrenOf([process.pid], (cmdline) => cmdline.includes("spawn-helper-process.js"));
}

/** The waiting shells (command line exactly `/bin/sh -s`), children of this process or of its spawn helpers. */
function waitingShells(): number[] {
  return childrenOf([process.pid, ...spawnHelpers()], (cmdline) => cmdline === "/bin/sh\0-s\0");
}

/**
 * The sandbox makes the next command's shell ahead (warm-shells.ts): it has joined fresh
 * cgroups and waits for its command. What the command gets must be what a direct start gives:
 * its exact argv and environment, its working directory, its own groups, and nothing left behind.
 */
describe.skipIf(!cgroupsUsable)("commands given to a shell made ahead (real bubblewrap and cgroups)", () => {
  let sandbox: Sandbox;
  let workspace: string;
  beforeAll(async () => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), "aide-warm-")));
    mkdirSync(join(workspace, "sub"));
    sandbox = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("warm-test", { level: "silent" }) });
  });
  afterAll(async () => {
    await sandbox?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("runs exactly its argv, with exactly its environment, in its working directory", async () => {
    const awkward = ["it's", "two\nlines", "$HOME", "`id`", "$(id)", " spaced ", "\\", '"', ";exit 9", ""];
    const extra = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.hooksPath", GIT_CONFIG_VALUE_0: "/dev/null's 'quoted'\nvalue" };
    const result = await sandbox.run({
      argv: ["/bin/sh", "-c", 'for a in "$@"; do printf "<%s>" "$a"; done; printf "\\035"; pwd; printf "\\035"; env -0 | tr "\\0" "\\036"', "sh", ...awkward],
      workspace,
      cwd: join(workspace, "sub"),
      network: false,
      timeoutMs: 20_000,
      env: extra,
    });
    expect(result.exitCode, result.stdout).toBe(0);
    const [args, cwd, env] = result.stdout.split("\u001d");
    expect(args).toBe(awkward.map((arg) => `<${arg}>`).join(""));
    expect(cwd).toBe(`${join(workspace, "sub")}\n`);
    const seen = Object.fromEntries(
      env
        .split("\u001e")
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );
    // What a direct start gives: the allow-listed environment, plus PWD (a shell started in cwd sets it).
    expect(seen).toEqual({ ...sandboxEnvironment(process.env, extra), PWD: join(workspace, "sub") });
  });

  it("each command runs in cgroups of its own, joined before it started", async () => {
    const groups: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const token = `warm-probe-${process.pid}-${index}`;
      const running = sandbox.run({ argv: ["sh", "-c", `while [ ! -e go-${token} ]; do sleep 0.02; done`], workspace, cwd: workspace, network: false, timeoutMs: 30_000 });
      // Seen from the host (inside, its cgroup namespace shows "/"): every process of the command.
      let seen: Array<{ pids?: string; memory?: string }> = [];
      for (let tries = 0; seen.length === 0 && tries < 400; tries += 1) {
        seen = hostProcessesWith(`go-${token}`).flatMap((line) => {
          try {
            const pid = Number(line.trim().split(/\s+/)[0]);
            return [{ pids: cgroupOf("pids", pid), memory: cgroupOf("memory", pid) }];
          } catch {
            return [];
          }
        });
        if (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      writeFileSync(join(workspace, `go-${token}`), "");
      expect((await running).exitCode).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      for (const process of seen) {
        expect(process.pids).toMatch(/aide-tools-[0-9a-f]+-run-\d+$/);
        expect(process.memory).toMatch(/aide-tools-[0-9a-f]+-run-\d+$/);
      }
      groups.push(seen[0].pids!);
    }
    expect(new Set(groups).size).toBe(3);
  });

  it("a command's exit code, timeout and kill are its own", async () => {
    const failed = await sandbox.run({ argv: ["sh", "-c", "exit 7"], workspace, cwd: workspace, network: false, timeoutMs: 20_000 });
    expect(failed.exitCode).toBe(7);
    const slow = await sandbox.run({ argv: ["sleep", "30"], workspace, cwd: workspace, network: false, timeoutMs: 1_000 });
    expect(slow.timedOut).toBe(true);
  });

  it("a command's file size, open files and core size are limited, soft and hard, whichever way it started", async () => {
    const limited = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("warm-test", { level: "silent" }), maxFileSizeBytes: 1024 * 1024 });
    try {
      const options = {
        argv: ["sh", "-c", "cat /proc/self/limits; head -c 2097152 /dev/zero > big.bin; echo wrote $?; wc -c < big.bin"],
        workspace,
        cwd: workspace,
        network: false,
        timeoutMs: 20_000,
      };
      // The foreground path (a shell made ahead), then a background start (a shell started for it).
      const outputs = [(await limited.run(options)).stdout, (await (await limited.start(options, "bg1")).finished).stdout];
      for (const output of outputs) {
        expect(output).toMatch(/^Max file size\s+1048576\s+1048576\s+bytes\s*$/m);
        expect(output).toMatch(/^Max open files\s+4096\s+4096\s+files\s*$/m);
        expect(output).toMatch(/^Max core file size\s+0\s+0\s+bytes\s*$/m);
        // The write past the limit fails (SIGXFSZ) and the file stops at the limit.
        expect(output).not.toContain("wrote 0");
        // (wc's count is a line of its own; the shell's "File size limit exceeded" notice may land after it.)
        expect(output.split("\n").map((line) => line.trim())).toContain("1048576");
        expect(output).not.toMatch(/^2097152$/m);
      }
    } finally {
      await limited.close();
    }
  });

  it("closing the sandbox ends the shell waiting for the next command", async () => {
    const other = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("warm-test", { level: "silent" }) });
    expect((await other.run({ argv: ["true"], workspace, cwd: workspace, network: false, timeoutMs: 20_000 })).exitCode).toBe(0);
    // Both sandboxes have one waiting (made in the background after each command).
    for (let tries = 0; waitingShells().length < 2 && tries < 200; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(waitingShells()).toHaveLength(2);
    // Forked by their spawn helpers, one per sandbox, not by this process.
    expect(spawnHelpers()).toHaveLength(2);
    expect(childrenOf([process.pid], (cmdline) => cmdline === "/bin/sh\0-s\0")).toEqual([]);
    await other.close();
    await sandbox.close();
    expect(waitingShells()).toEqual([]);
    expect(spawnHelpers()).toEqual([]);
  });
});
