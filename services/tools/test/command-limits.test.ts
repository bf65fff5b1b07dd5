import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { cgroupOf, cgroupUsable, hostProcessesWith } from "./host-processes.js";

const cgroupsUsable = cgroupUsable("pids") && cgroupUsable("memory");
if (!cgroupsUsable) console.warn("command-limits.test: cgroup v1 pids/memory not writable here; the per-command cgroup test is skipped");

/** Host pids whose command line contains `needle`. */
function pidsWith(needle: string): number[] {
  return hostProcessesWith(needle).map((line) => Number(line.trim().split(/\s+/)[0]));
}

const maxProcesses = 97;
const maxMemoryBytes = 300 * 1024 * 1024;

describe.skipIf(!cgroupsUsable)("every command gets its own cgroup with its limits, however many start at once", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ env: { AIDE_TOOLS_MAX_PROCESSES: String(maxProcesses), AIDE_TOOLS_MAX_MEMORY_BYTES: String(maxMemoryBytes), AIDE_TOOLS_MAX_COMMANDS: "8" } });
  });
  afterAll(async () => h?.stop());

  it("8 commands started at once: 8 distinct pids and memory groups, each with pids.max and the memory limit set", async () => {
    const tokens = Array.from({ length: 8 }, (_, index) => `limits-probe-${process.pid}-${index}`);
    // All eight run at once (AIDE_TOOLS_MAX_COMMANDS=8), each until the test lets it finish.
    const finished = Promise.all(tokens.map((token) => h.exec("run_command", { command: `while [ ! -e go-${token} ]; do sleep 0.05; done; echo done-${token}` })));
    const release = () => tokens.forEach((token) => writeFileSync(join(h.workspace, `go-${token}`), ""));
    try {
      await checkGroups(tokens);
    } finally {
      release();
    }
    const replies = await finished;
    for (const [index, reply] of replies.entries()) {
      expect(reply.ok, JSON.stringify(reply)).toBe(true);
      expect(reply.result.output).toContain(`done-${tokens[index]}`);
    }
  });
});

/** Waits until every command shows up in an aide-tools cgroup (seen from the host), then checks them. */
async function checkGroups(tokens: string[]): Promise<void> {
  const groups = new Map<string, { pids: string; memory: string }>();
  const deadline = Date.now() + 30_000;
  while (groups.size < tokens.length && Date.now() < deadline) {
    for (const token of tokens) {
      if (groups.has(token)) continue;
      for (const pid of pidsWith(`go-${token}`)) {
        try {
          const pids = cgroupOf("pids", pid);
          const memory = cgroupOf("memory", pid);
          if (pids?.includes("aide-tools-") && memory?.includes("aide-tools-")) groups.set(token, { pids, memory });
        } catch {
          // the process is gone or not yet readable
        }
      }
    }
    if (groups.size < tokens.length) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect([...groups.keys()].sort(), "every command is in an aide-tools cgroup of its own").toEqual([...tokens].sort());
  const values = [...groups.values()];
  expect(new Set(values.map((group) => group.pids)).size).toBe(8);
  expect(new Set(values.map((group) => group.memory)).size).toBe(8);
  for (const group of values) {
    expect(readFileSync(join("/sys/fs/cgroup/pids", group.pids, "pids.max"), "utf8").trim()).toBe(String(maxProcesses));
    expect(readFileSync(join("/sys/fs/cgroup/memory", group.memory, "memory.limit_in_bytes"), "utf8").trim()).toBe(String(maxMemoryBytes));
  }
}

describe("when the limits cannot be applied the command does not run", () => {
  let strict: ToolsHarness;
  let off: ToolsHarness;
  beforeAll(async () => {
    // No cgroup hierarchy at this root: neither limit can be applied.
    strict = await startToolsHarness({ env: { AIDE_TOOLS_CGROUP_ROOT: "/nonexistent-cgroup-root" } });
    off = await startToolsHarness({ env: { AIDE_TOOLS_CGROUP_ROOT: "/nonexistent-cgroup-root", AIDE_TOOLS_COMMAND_LIMITS: "off" } });
  });
  afterAll(async () => {
    await strict?.stop();
    await off?.stop();
  });

  it("refuses run_command and process_start with SANDBOX_LIMITS_UNAVAILABLE, running nothing", async () => {
    const run = await strict.exec("run_command", { command: "echo ran > ran.txt" });
    expect(run.ok).toBe(false);
    expect(run.error.code).toBe("SANDBOX_LIMITS_UNAVAILABLE");
    expect(run.error.message).toContain("AIDE_TOOLS_COMMAND_LIMITS=off");
    const background = await strict.exec("process_start", { command: "echo ran > bg.txt" });
    expect(background.ok).toBe(false);
    expect(background.error.code).toBe("SANDBOX_LIMITS_UNAVAILABLE");
    const listing = await strict.exec("list_dir", { path: "." });
    expect(listing.result.output).not.toMatch(/ran\.txt|bg\.txt/);
  });

  it("control: with AIDE_TOOLS_COMMAND_LIMITS=off the operator lets it run without them", async () => {
    const run = await off.exec("run_command", { command: "echo ran" });
    expect(run.ok, JSON.stringify(run)).toBe(true);
    expect(run.result.output).toContain("ran");
  });
});
