import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WorkspaceLock } from "./workspace-lock.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
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
    await expect(lock.run(never, async () => {
      expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
      throw new Error("boom");
    })).rejects.toThrow("boom");
    expect(existsSync(path)).toBe(false);
    await lock.run(never, async () => undefined);
  });

  it("clears a lock left by a dead process, or by an earlier process with our pid", async () => {
    const path = lockPath();
    await new WorkspaceLock(path).run(never, async () => undefined); // creates the folder
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
    await new WorkspaceLock(path).run(never, async () => undefined);
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
