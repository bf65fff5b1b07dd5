import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFileLocker } from "./host-file-lock.js";

const dirs: string[] = [];
const lockers: HostFileLocker[] = [];
afterEach(() => {
  for (const locker of lockers.splice(0)) locker.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function lockFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "aide-flock-"));
  dirs.push(dir);
  return join(dir, "aide.lock.flock");
}
function locker(path: string): HostFileLocker {
  const made = new HostFileLocker(path);
  lockers.push(made);
  return made;
}
/** Whether another process could take the flock right now (util-linux flock, non-blocking). */
const freeForOthers = (path: string) => spawnSync("flock", ["--nonblock", "--exclusive", path, "true"]).status === 0;
const hasFlock = spawnSync("flock", ["--version"]).status === 0;
const never = new AbortController().signal;

describe.skipIf(!hasFlock)(`HostFileLocker${hasFlock ? "" : " [SKIPPED: util-linux flock is not installed]"}`, () => {
  it("holds the kernel lock against other processes until release, with one helper reused from lock to lock", async () => {
    const path = lockFile();
    const first = locker(path);
    const held = await first.hold(never);
    expect(held?.identity).toMatch(/^[0-9a-f-]+:\d+:\d+$/);
    expect(freeForOthers(path)).toBe(false);
    const helper = first.helperPid;
    expect(helper).toBeGreaterThan(0);
    await held!.release();
    expect(freeForOthers(path)).toBe(true);
    for (let i = 0; i < 5; i++) {
      const again = await first.hold(never);
      expect(again!.identity).toBe(held!.identity);
      expect(freeForOthers(path)).toBe(false);
      await again!.release();
    }
    expect(first.helperPid).toBe(helper);
  });

  it("makes a second locker of the same file wait until the first releases; an abandoned wait leaves the lock free", async () => {
    const path = lockFile();
    const first = locker(path);
    const second = locker(path);
    const held = await first.hold(never);
    const abandon = new AbortController();
    const waiting = second.hold(abandon.signal);
    abandon.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    let secondHeld = false;
    const next = second.hold(never).then((lock) => { secondHeld = true; return lock; });
    // The second cannot have it while the first holds it (checked after the first's release resolves).
    expect(secondHeld).toBe(false);
    await held!.release();
    const lock = await next;
    expect(freeForOthers(path)).toBe(false);
    await lock!.release();
    expect(freeForOthers(path)).toBe(true);
  });

  it("locks the file the path names now when the lock file was deleted and made again (the shadow repository recreated)", async () => {
    const path = lockFile();
    const first = locker(path);
    const held = await first.hold(never);
    const helper = first.helperPid;
    await held!.release();
    rmSync(path);
    const again = await first.hold(never);
    expect(freeForOthers(path)).toBe(false);
    // The old helper held the deleted file (its inode number may well be reused): a new one holds the new file.
    expect(first.helperPid).not.toBe(helper);
    await again!.release();
    expect(freeForOthers(path)).toBe(true);
  });

  it("is freed by the kernel when its holder is killed with SIGKILL", async () => {
    const path = lockFile();
    const moduleUrl = new URL("./host-file-lock.js", import.meta.url).href.replace("/src/", "/dist/");
    const holder = spawn(process.execPath, ["--input-type=module", "-e", `const { HostFileLocker } = await import(${JSON.stringify(moduleUrl)}); await new HostFileLocker(${JSON.stringify(path)}).hold(new AbortController().signal); console.log("held"); setInterval(() => {}, 1000);`], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => holder.stdout!.on("data", (chunk: Buffer) => { if (chunk.toString().includes("held")) resolve(); }));
    expect(freeForOthers(path)).toBe(false);
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    holder.kill("SIGKILL");
    await exited;
    const lock = await locker(path).hold(never);
    expect(lock).toBeDefined();
    await lock!.release();
  });
});
