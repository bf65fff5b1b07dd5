import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStackProcess, type StackProcess } from "../helpers/stack-process.js";

/** Children of `parent` with their command lines, from /proc. */
function childrenOf(parent: number): Array<{ pid: number; args: string }> {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== parent) return [];
        return [{ pid: Number(name), args: readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") }];
      } catch {
        return [];
      }
    });
}

/**
 * The tools service as `aide up` runs it (its bubblewrap profile, the cgroups the supervisor
 * delegates to it): its spawn helper starts inside that profile and forks the shell made ahead for
 * the next command, which joins a command cgroup of its own. Stopping the stack ends both.
 */
describe("the spawn helper under aide up", () => {
  let home: string;
  let workspace: string;
  let stack: StackProcess;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-spawner-up-"));
    workspace = mkdtempSync(join(tmpdir(), "aide-spawner-up-ws-"));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace] });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it("runs in the tools service's sandbox and forks the waiting shell, which joins a command cgroup; gone with the stack", async () => {
    const tools = (stack.stack.services as Record<string, { pid: number }>).tools!.pid;
    let helper: { pid: number; args: string } | undefined;
    let shell: { pid: number; args: string } | undefined;
    let cgroup = "";
    for (let tries = 0; tries < 400 && !/aide-tools-[0-9a-f]+-run-\d+/.test(cgroup); tries += 1) {
      helper = childrenOf(tools).find((child) => child.args.includes("spawn-helper-process.js"));
      shell = helper === undefined ? undefined : childrenOf(helper.pid).find((child) => child.args === "/bin/sh -s");
      try {
        cgroup = shell === undefined ? "" : readFileSync(`/proc/${shell.pid}/cgroup`, "utf8");
      } catch {
        cgroup = "";
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(helper, "the tools service started its spawn helper").toBeDefined();
    expect(shell, "the helper forked the shell waiting for the next command").toBeDefined();
    expect(cgroup).toMatch(/pids:.*aide-tools-[0-9a-f]+-run-\d+/);
    // The same mount namespace as the service: inside its aide up profile, not on the host.
    expect(readFileSync(`/proc/${helper!.pid}/mountinfo`, "utf8")).toBe(readFileSync(`/proc/${tools}/mountinfo`, "utf8"));
    await stack.stop();
    const gone = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
      } catch {
        return true;
      }
    };
    for (let tries = 0; tries < 400 && !(gone(helper!.pid) && gone(shell!.pid)); tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(gone(helper!.pid)).toBe(true);
    expect(gone(shell!.pid)).toBe(true);
  });
});
