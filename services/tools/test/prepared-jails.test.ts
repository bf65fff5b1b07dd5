import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@aide/runtime";
import { createSandbox, type Sandbox, type SandboxRunOptions } from "../src/index.js";
import { cgroupUsable, descendantsOf, hostProcessesWith } from "./host-processes.js";

const cgroupsUsable = cgroupUsable("pids") && cgroupUsable("memory");
if (!cgroupsUsable) console.warn("prepared-jails.test: cgroup v1 pids/memory not writable here; commands run without groups, so no jail is prepared ahead and these tests are skipped");

/** A sandbox whose debug lines are kept: "prepared jail ready/taken/discarded" are the positive markers waited for. */
async function observedSandbox(settings: { preparedJails?: number } = {}) {
  const lines: string[] = [];
  const logger = createLogger("jails-test", { level: "debug", destination: { write: (line: string) => void lines.push(line) } });
  const sandbox = await createSandbox({ unsafeNoSandbox: false, logger, ...settings });
  const count = (message: string) => lines.filter((line) => line.includes(`"msg":"${message}"`)).length;
  return {
    sandbox,
    lines,
    taken: () => count("prepared jail taken"),
    discarded: (reason?: string) => lines.filter((line) => line.includes('"msg":"prepared jail discarded"') && (reason === undefined || line.includes(reason))).length,
    /** Jails ready and not yet taken or discarded for a workspace and network. */
    waitingFor(workspace: string, network = false) {
      const ofSlot = (message: string) => lines.filter((line) => line.includes(`"msg":"${message}"`) && line.includes(`"slot":"${workspace}\\u0000${network ? "network" : "no-network"}"`));
      return ofSlot("prepared jail ready").length - ofSlot("prepared jail taken").length - ofSlot("prepared jail discarded").filter((line) => line.includes('"ready":true')).length;
    },
    /** Waits until a jail of the profile is ready and waiting (one is prepared once a command of its profile finished). */
    async waitReady(workspace: string, network = false) {
      for (let tries = 0; this.waitingFor(workspace, network) < 1 && tries < 800; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(this.waitingFor(workspace, network), "a jail is waiting").toBe(1);
    },
    count,
  };
}

/**
 * Foreground commands run in a jail prepared ahead (prepared-jails.ts). Each test first checks the
 * command really ran in a prepared jail (the "taken" marker), then that it got what a fresh jail
 * gives: its own namespaces, /tmp and cgroups, exact argv/environment, the protections of the
 * repository as it is now, the network of its profile, and the deadline and abort.
 */
describe.skipIf(!cgroupsUsable)("commands in a jail prepared ahead (real bubblewrap, cgroups and git)", () => {
  let workspace: string;
  let observed: Awaited<ReturnType<typeof observedSandbox>>;
  let fresh: Sandbox;
  let listener: Server;
  let port = 0;
  const options = (argv: string[], extra: Partial<SandboxRunOptions> = {}): SandboxRunOptions => ({ argv, workspace, cwd: workspace, network: false, timeoutMs: 20_000, ...extra });
  /** Runs one command of the profile, then waits until the next jail of that profile is ready. */
  /** Two commands of the profile (a jail is prepared for a profile that had one in the last minute), then waits until the next jail is ready. */
  const primed = async (extra: Partial<SandboxRunOptions> = {}) => {
    const run = options(["true"], extra);
    expect((await observed.sandbox.run(run)).exitCode).toBe(0);
    expect((await observed.sandbox.run(run)).exitCode).toBe(0);
    // Whichever jail waits now was prepared after the first of them started.
    await observed.waitReady(run.workspace, run.network);
  };
  /** Runs argv in a prepared jail, then waits for the next one of the profile. */
  const thenPrimed = async (argv: string[]) => {
    const result = await inPreparedJail(argv);
    await observed.waitReady(workspace);
    return result;
  };
  /** Runs argv expecting it to be given a prepared jail. */
  const inPreparedJail = async (argv: string[], extra: Partial<SandboxRunOptions> = {}) => {
    const taken = observed.taken();
    const result = await observed.sandbox.run(options(argv, extra));
    expect(observed.taken(), "the command ran in a prepared jail").toBe(taken + 1);
    return result;
  };

  beforeAll(async () => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), "aide-jails-")));
    mkdirSync(join(workspace, "sub"));
    execFileSync("git", ["init", "-q", workspace]);
    observed = await observedSandbox();
    fresh = await createSandbox({ unsafeNoSandbox: false, logger: createLogger("jails-test-fresh", { level: "silent" }), preparedJails: 0 });
    listener = createServer((socket) => socket.end("CONNECTED\n"));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    listener?.close();
    await observed?.sandbox.close();
    await fresh?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("gives the command exactly what a fresh jail gives: argv, cwd, environment, open files, limits, capabilities", async () => {
    const awkward = ["it's", "two\nlines", "$HOME", "`id`", "$(id)", " spaced ", "\\", '"', ";exit 9", ""];
    const extra = { env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.hooksPath", GIT_CONFIG_VALUE_0: "/dev/null's 'quoted'\nvalue" }, cwd: join(workspace, "sub") };
    const probe = [
      "/bin/sh",
      "-c",
      'for a in "$@"; do printf "<%s>" "$a"; done; printf "\\035"; pwd; env -0 | sort -z | tr "\\0" "\\036"; echo; ls /proc/self/fd; grep -E "^(Cap|NoNewPrivs|Seccomp)" /proc/self/status; cat /proc/self/limits; id; ls -a /tmp /tmp/home; cat /proc/self/uid_map',
      "sh",
      ...awkward,
    ];
    await primed();
    const prepared = await inPreparedJail(probe, extra);
    const direct = await fresh.run(options(probe, extra));
    expect(prepared.exitCode, prepared.stdout).toBe(0);
    expect(prepared.stdout.split("\u001d")[0]).toBe(awkward.map((arg) => `<${arg}>`).join(""));
    expect(prepared.stdout).toBe(direct.stdout);
  });

  it("a command in a prepared jail has /tmp, IPC and processes of its own: nothing carries over to the next", async () => {
    await primed();
    const first = await thenPrimed(["/bin/sh", "-c", "echo left > /tmp/left-by-first; mkdir /tmp/home/.cache-first; ipcmk -Q >/dev/null && ipcs -q | grep -c 0x; (sleep 424299 &) ; ls /tmp"]);
    const second = await inPreparedJail(["/bin/sh", "-c", "ls -a /tmp /tmp/home; echo queues $(ipcs -q | grep -c 0x); ps -eo args"]);
    expect(first.exitCode, first.stdout).toBe(0);
    expect(first.stdout).toContain("left-by-first");
    expect(second.exitCode, second.stdout).toBe(0);
    expect(second.stdout).not.toContain("left-by-first");
    expect(second.stdout).not.toContain("cache-first");
    expect(second.stdout).toContain("queues 0");
    expect(second.stdout).not.toContain("sleep 424299");
  });

  it("a host `git config` write (a rename over .git/config) discards the prepared jail: the config stays read-only to the command", async () => {
    await primed();
    // What git does on the host: write config.lock, rename it over config. The jail's read-only
    // mount of the old config is detached by the kernel; a jail used anyway would let this write through.
    execFileSync("git", ["-C", workspace, "config", "aide.test", "host-write"]);
    const discarded = observed.discarded();
    const taken = observed.taken();
    const result = await observed.sandbox.run(options(["/bin/sh", "-c", "echo '[core]' >> .git/config && echo WROTE; git config aide.test"]));
    expect(observed.taken()).toBe(taken);
    expect(observed.discarded()).toBe(discarded + 1);
    expect(result.stdout).not.toContain("WROTE");
    expect(result.stdout).toContain("host-write");
    expect(readFileSync(join(workspace, ".git", "config"), "utf8")).not.toMatch(/\[core\]\n$/);
  });

  it("a repository made after the jail was prepared is protected like any other (the discovery changed, so the jail is not used)", async () => {
    await primed();
    execFileSync("git", ["init", "-q", join(workspace, "sub", "nested")]);
    const taken = observed.taken();
    const result = await observed.sandbox.run(options(["/bin/sh", "-c", "echo hooked > sub/nested/.git/hooks/pre-commit && echo HOOKED; echo x >> sub/nested/.git/config && echo WROTE"]));
    expect(observed.taken()).toBe(taken);
    expect(observed.discarded("its arguments changed")).toBeGreaterThan(0);
    expect(result.stdout).not.toContain("HOOKED");
    expect(result.stdout).not.toContain("WROTE");
  });

  it("a .aide folder made after the jail was prepared is read-only to the command", async () => {
    await primed();
    mkdirSync(join(workspace, ".aide"));
    const taken = observed.taken();
    const result = await observed.sandbox.run(options(["/bin/sh", "-c", "echo planted > .aide/planted && echo PLANTED"]));
    expect(observed.taken()).toBe(taken);
    expect(result.stdout).not.toContain("PLANTED");
    rmSync(join(workspace, ".aide"), { recursive: true });
  });

  it("a workspace replaced on the host since the jail was prepared is the new one inside, writable", async () => {
    const other = realpathSync(mkdtempSync(join(tmpdir(), "aide-jails-replaced-")));
    // A jail used anyway would see the new folder only through its read-only root.
    const local = (extra: Partial<SandboxRunOptions> = {}) => options(["/bin/sh", "-c", "echo x > written && cat marker"], { workspace: other, cwd: other, ...extra });
    try {
      writeFileSync(join(other, "marker"), "old\n");
      expect((await observed.sandbox.run(local())).stdout).toBe("old\n");
      expect((await observed.sandbox.run(local())).stdout).toBe("old\n");
      await observed.waitReady(other);
      renameSync(other, `${other}.old`);
      mkdirSync(other);
      writeFileSync(join(other, "marker"), "new\n");
      const taken = observed.taken();
      const result = await observed.sandbox.run(local());
      expect(observed.taken()).toBe(taken);
      expect(result.stdout).toBe("new\n");
    } finally {
      rmSync(other, { recursive: true, force: true });
      rmSync(`${other}.old`, { recursive: true, force: true });
    }
  });

  it("keeps each profile's network: none without consent, the host's with it", async () => {
    const connect = ["bash", "-c", `{ exec 3<>/dev/tcp/127.0.0.1/${port}; } 2>/dev/null && head -1 <&3 || echo BLOCKED`];
    await primed({ network: true });
    await primed({ network: false });
    const blocked = await inPreparedJail(connect, { network: false });
    const allowed = await inPreparedJail(connect, { network: true });
    expect(blocked.stdout).toContain("BLOCKED");
    expect(blocked.stdout).not.toContain("CONNECTED");
    expect(allowed.stdout).toContain("CONNECTED");
  });

  it("the deadline and abort still kill the command and everything it started", async () => {
    await primed();
    // Gone once `finished` resolved, give or take the kernel reaping what was killed.
    const gone = async (needle: string) => {
      for (let tries = 0; hostProcessesWith(needle).length > 0 && tries < 200; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      return hostProcessesWith(needle);
    };
    const slow = await inPreparedJail(["/bin/sh", "-c", "sleep 424201 & sleep 424202"], { timeoutMs: 1_000 });
    expect(slow.timedOut).toBe(true);
    expect(await gone("sleep 42420")).toEqual([]);
    await observed.waitReady(workspace);
    const controller = new AbortController();
    const taken = observed.taken();
    const running = observed.sandbox.run(options(["/bin/sh", "-c", "sleep 424203 & sleep 424204"], { signal: controller.signal }));
    for (let tries = 0; hostProcessesWith("sleep 424204").length === 0 && tries < 400; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(hostProcessesWith("sleep 424204").length).toBeGreaterThan(0);
    controller.abort();
    const aborted = await running;
    expect(observed.taken()).toBe(taken + 1);
    expect(aborted.aborted).toBe(true);
    expect(await gone("sleep 42420")).toEqual([]);
  });

  it("closing the sandbox ends every prepared jail", async () => {
    const other = await observedSandbox();
    expect((await other.sandbox.run(options(["true"]))).exitCode).toBe(0);
    expect((await other.sandbox.run(options(["true"]))).exitCode).toBe(0);
    await other.waitReady(workspace);
    const jailsOf = () => descendantsOf(process.pid).filter((child) => child.args[0] === "bwrap" && child.args.at(-1) === "-s");
    expect(jailsOf().length).toBeGreaterThan(0);
    const before = jailsOf().length;
    await other.sandbox.close();
    expect(jailsOf().length).toBeLessThan(before);
    expect(other.discarded("closing")).toBe(1);
  });
});
