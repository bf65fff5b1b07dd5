import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { WorkspaceLock } from "./workspace-lock.js";
import { hostLockHelper } from "./host-lock-helper.js";
import type { CrossHostLock } from "./kv-workspace-lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "aide-lock-"));
  dirs.push(dir);
  return join(dir, "shadow", "aide.lock");
}
const never = new AbortController().signal;

describe("WorkspaceLock", () => {
  it("runs work one at a time, in order", async () => {
    const lock = new WorkspaceLock(lockPath());
    const events: string[] = [];
    const job = (name: string, waitMs: number) =>
      lock.run(never, async () => {
        events.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, waitMs));
        events.push(`end ${name}`);
      });
    await Promise.all([job("a", 30), job("b", 1), job("c", 1)]);
    expect(events).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("holds a lock file while working and removes it after, even on failure", async () => {
    const path = lockPath();
    const lock = new WorkspaceLock(path);
    await expect(
      lock.run(never, async () => {
        expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    // The failure is answered first; the file goes right after, before anything else may run.
    await lock.settled();
    expect(existsSync(path)).toBe(false);
    await lock.run(never, async () => undefined);
  });

  it("answers before letting go of the cross-host lock, and lets no other run in until it has", async () => {
    const events: string[] = [];
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let entered!: () => void;
    const releasing = new Promise<void>((resolve) => (entered = resolve));
    const crossHost: CrossHostLock = {
      acquire: async () => {
        events.push("acquired");
        return async () => {
          events.push("releasing");
          entered();
          await gate;
          events.push("released");
        };
      },
    };
    const lock = new WorkspaceLock(lockPath(), { crossHost: { lock: crossHost, workspace: "/ws/one" } });
    const first = lock.run(never, async () => "first");
    void first.then((value) => events.push(`answered ${value}`));
    await releasing;
    await new Promise((resolve) => setImmediate(resolve));
    // Answered while the release is still under way; the workspace is still held.
    expect(events).toEqual(["acquired", "releasing", "answered first"]);
    expect(lock.busy).toBe(true);
    const second = lock.run(never, async () => {
      events.push("second ran");
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).not.toContain("second ran");
    letGo();
    await second;
    expect(events.slice(0, 6)).toEqual(["acquired", "releasing", "answered first", "released", "acquired", "second ran"]);
    await lock.settled();
    expect(lock.busy).toBe(false);
  });

  it.skipIf(spawnSync("perl", ["-e", "1"]).status !== 0)("stops the work it runs when the kernel lock is dropped under it (the lock helper died), never going on unlocked", async () => {
    const crossHost: CrossHostLock = { acquire: async () => async () => undefined };
    const lock = new WorkspaceLock(lockPath(), { crossHost: { lock: crossHost, workspace: "/ws/lost" } });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const work = lock.run(
      never,
      (signal) =>
        new Promise<string>((resolve, reject) => {
          expect(signal.aborted).toBe(false);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          started();
        }),
    );
    await running;
    process.kill(hostLockHelper.pid!, "SIGKILL");
    await expect(work).rejects.toMatchObject({ code: "CHECKPOINT_FAILED", details: { reason: "lock_helper_exited" } });
    await lock.settled();
    // The next run takes the lock again through a new helper.
    expect(await lock.run(never, async (signal) => signal.aborted)).toBe(false);
    await lock.settled();
  });

  it("clears a lock left by a dead process, or by an earlier process with our pid", async () => {
    const path = lockPath();
    const setup = new WorkspaceLock(path);
    await setup.run(never, async () => undefined); // creates the folder
    await setup.settled(); // and has removed its lock file
    writeFileSync(path, JSON.stringify({ pid: 999_999, token: "x", since: Date.now() }));
    const lock = new WorkspaceLock(path, { isAlive: (pid) => pid !== 999_999 });
    expect(await lock.run(never, async () => "ran")).toBe("ran");
    writeFileSync(path, JSON.stringify({ pid: process.pid, token: "an earlier process", since: Date.now() }));
    expect(await lock.run(never, async () => "ran again")).toBe("ran again");
    writeFileSync(path, "{half-writ");
    expect(await lock.run(never, async () => "after garbage")).toBe("after garbage");
  });

  it("waits for a live owner and gives up with the signal's reason", async () => {
    const path = lockPath();
    const setup = new WorkspaceLock(path);
    await setup.run(never, async () => undefined);
    await setup.settled();
    writeFileSync(path, JSON.stringify({ pid: 4242, token: "other", since: Date.now() }));
    const lock = new WorkspaceLock(path, { isAlive: () => true });
    const controller = new AbortController();
    const pending = lock.run(controller.signal, async () => "never");
    setTimeout(() => controller.abort(new Error("gave up")), 50);
    await expect(pending).rejects.toThrow("gave up");
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(4242);
    // An old lock is taken over even when its pid looks alive (pid reuse).
    const later = new WorkspaceLock(path, { isAlive: () => true, staleAfterMs: 1000, now: () => Date.now() + 5000 });
    expect(await later.run(never, async () => "took over")).toBe("took over");
  });
});
