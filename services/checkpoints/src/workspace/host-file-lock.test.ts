import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HostFileLocker } from "./host-file-lock.js";
import { HostLockHelper } from "./host-lock-helper.js";

const dirs: string[] = [];
const lockers: HostFileLocker[] = [];
const helpers: HostLockHelper[] = [];
afterEach(() => {
  for (const locker of lockers.splice(0)) locker.close();
  for (const helper of helpers.splice(0)) helper.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function lockFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "aide-flock-"));
  dirs.push(dir);
  return join(dir, "aide.lock.flock");
}
/** The way under test: the shared helper (one per test, so counts are this test's), or each file's own shell. */
let way: "shared" | "shell" = "shared";
let sharedHelper: HostLockHelper | undefined;
function newHelper(program?: string): HostLockHelper {
  const helper = new HostLockHelper(program);
  helpers.push(helper);
  return helper;
}
function locker(path: string, helper?: HostLockHelper): HostFileLocker {
  if (way === "shared") sharedHelper ??= newHelper();
  const made = new HostFileLocker(path, helper ?? (way === "shared" ? sharedHelper : null));
  lockers.push(made);
  return made;
}
/** Whether another process could take the flock right now (util-linux flock, non-blocking). */
const freeForOthers = (path: string) => spawnSync("flock", ["--nonblock", "--exclusive", path, "true"]).status === 0;
const hasFlock = spawnSync("flock", ["--version"]).status === 0;
const never = new AbortController().signal;

const hasPerl = spawnSync("perl", ["-e", "1"]).status === 0;

describe.skipIf(!hasFlock)(`HostFileLocker${hasFlock ? "" : " [SKIPPED: util-linux flock is not installed]"}`, () => {
  describe.each(["shared", "shell"] as const)("through the %s helper", (mode) => {
    beforeEach(() => {
      if (mode === "shared" && !hasPerl) throw new Error("perl is missing: the shared lock helper cannot be tested");
      way = mode;
      sharedHelper = undefined;
    });

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
      const next = second.hold(never).then((lock) => {
        secondHeld = true;
        return lock;
      });
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
      // The shell held the deleted file open (its inode number may well be reused): a new one holds the new file.
      // The shared helper opens the file per lock, so it locks the new file itself.
      if (mode === "shell") expect(first.helperPid).not.toBe(helper);
      else expect(first.helperPid).toBe(helper);
      await again!.release();
      expect(freeForOthers(path)).toBe(true);
    });

    it("is freed by the kernel when its holder is killed with SIGKILL", async () => {
      const path = lockFile();
      const moduleUrl = new URL("./host-file-lock.js", import.meta.url).href.replace("/src/", "/dist/");
      const holder = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { HostFileLocker } = await import(${JSON.stringify(moduleUrl)}); await new HostFileLocker(${JSON.stringify(path)}${mode === "shell" ? ", null" : ""}).hold(new AbortController().signal); console.log("held"); setInterval(() => {}, 1000);`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      await new Promise<void>((resolve) =>
        holder.stdout!.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("held")) resolve();
        }),
      );
      expect(freeForOthers(path)).toBe(false);
      const exited = new Promise((resolve) => holder.once("exit", resolve));
      holder.kill("SIGKILL");
      await exited;
      const lock = await locker(path).hold(never);
      expect(lock).toBeDefined();
      await lock!.release();
    });
  });
});

describe.skipIf(!hasFlock || !hasPerl)("the shared lock helper", () => {
  beforeEach(() => {
    way = "shared";
    sharedHelper = undefined;
  });

  it("holds the locks of many workspaces at once through one process, each against other processes", async () => {
    const helper = newHelper();
    const paths = Array.from({ length: 12 }, () => lockFile());
    const held = await Promise.all(paths.map((path) => locker(path, helper).hold(never)));
    expect(helper.started).toBe(1);
    expect(new Set(paths.map((path) => locker(path, helper).helperPid))).toEqual(new Set([helper.pid]));
    for (const path of paths) expect(freeForOthers(path)).toBe(false);
    // Released one by one: only that file is free.
    await held[0]!.release();
    expect(freeForOthers(paths[0]!)).toBe(true);
    expect(freeForOthers(paths[1]!)).toBe(false);
    await Promise.all(held.slice(1).map((lock) => lock!.release()));
    for (const path of paths) expect(freeForOthers(path)).toBe(true);
    // Taken again: still the same process, none started per lock or per workspace.
    const again = await Promise.all(paths.map((path) => locker(path, helper).hold(never)));
    await Promise.all(again.map((lock) => lock!.release()));
    expect(helper.started).toBe(1);
  });

  it("waits for a file another process holds without holding up the other files", async () => {
    const helper = newHelper();
    const busy = lockFile();
    const other = lockFile();
    // Another process holds `busy` until told to let go (util-linux flock, a shell waiting on stdin).
    const holder = spawn("flock", ["--exclusive", busy, "sh", "-c", "echo held; read line"], { stdio: ["pipe", "pipe", "ignore"] });
    await new Promise<void>((resolve) => holder.stdout!.on("data", () => resolve()));
    let busyHeld = false;
    const waiting = locker(busy, helper)
      .hold(never)
      .then((lock) => {
        busyHeld = true;
        return lock;
      });
    const otherLock = await locker(other, helper).hold(never);
    expect(freeForOthers(other)).toBe(false);
    expect(busyHeld).toBe(false);
    await otherLock!.release();
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    holder.stdin!.end("go\n");
    await exited;
    const busyLock = await waiting;
    expect(freeForOthers(busy)).toBe(false);
    await busyLock!.release();
    expect(freeForOthers(busy)).toBe(true);
  });

  it("reports a held lock lost when its helper dies (the kernel drops it), and the next lock starts a new helper", async () => {
    const helper = newHelper();
    const path = lockFile();
    const held = await locker(path, helper).hold(never);
    expect(held!.lost!.aborted).toBe(false);
    const lost = new Promise<unknown>((resolve) => held!.lost!.addEventListener("abort", () => resolve(held!.lost!.reason), { once: true }));
    process.kill(helper.pid!, "SIGKILL");
    expect(await lost).toMatchObject({ code: "CHECKPOINT_FAILED" });
    expect(freeForOthers(path)).toBe(true);
    const again = await locker(path, helper).hold(never);
    expect(helper.started).toBe(2);
    expect(freeForOthers(path)).toBe(false);
    await again!.release();
    await held!.release();
  });

  it("asks a new helper when the one it waited on dies, so a waiting lock is never left unanswered or taken unlocked", async () => {
    const helper = newHelper();
    const path = lockFile();
    const holder = spawn("flock", ["--exclusive", path, "sh", "-c", "echo held; read line"], { stdio: ["pipe", "pipe", "ignore"] });
    await new Promise<void>((resolve) => holder.stdout!.on("data", () => resolve()));
    const waiting = locker(path, helper).hold(never);
    // The helper is waiting for the file; it dies.
    await new Promise<void>((resolve) => {
      const poll = () => (helper.pid !== undefined ? resolve() : setTimeout(poll, 5));
      poll();
    });
    const first = helper.pid!;
    process.kill(first, "SIGKILL");
    await new Promise<void>((resolve) => {
      const poll = () => (helper.pid !== undefined && helper.pid !== first ? resolve() : setTimeout(poll, 5));
      poll();
    });
    // Still not ours: the other process holds it.
    expect(freeForOthers(path)).toBe(false);
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    holder.stdin!.end("go\n");
    await exited;
    const lock = await waiting;
    expect(helper.started).toBe(2);
    expect(freeForOthers(path)).toBe(false);
    await lock!.release();
  });

  it("falls back to a shell per file where the helper cannot run (no perl)", async () => {
    const missing = newHelper("/nonexistent/perl");
    const path = lockFile();
    const lock = await locker(path, missing).hold(never);
    expect(missing.missing).toBe(true);
    expect(freeForOthers(path)).toBe(false);
    await lock!.release();
    expect(freeForOthers(path)).toBe(true);
  });
});
