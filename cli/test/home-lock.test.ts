import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";

/**
 * Several starters race for one home lock, each in its own process, all released at the same
 * instant. Each prints what acquireHomeLock returned and stays alive (its pid live) until its stdin
 * closes, as a supervisor holds the lock while it runs.
 */
const racer = `
import { createRequire, syncBuiltinESMExports } from "node:module";
if (process.env.SLOW_WRITES) {
  // A slow disk: every file write opens (creates) the file, waits, then fills it.
  const fs = createRequire(import.meta.url)("node:fs");
  const pause = new Int32Array(new SharedArrayBuffer(4));
  fs.writeFileSync = (file, data, options) => {
    const fd = fs.openSync(file, options?.flag ?? "w", options?.mode ?? 0o666);
    Atomics.wait(pause, 0, 0, Number(process.env.SLOW_WRITES));
    fs.writeSync(fd, String(data));
    fs.closeSync(fd);
  };
  syncBuiltinESMExports();
}
const { acquireHomeLock } = await import(${JSON.stringify(join(repoRoot, "cli", "dist", "supervisor", "home-lock.js"))});
const [path, at, after] = process.argv.slice(1);
while (Date.now() < Number(at)) {}
if (after) {
  // Starts only once an earlier starter has begun writing (a file of its own is in the folder).
  const { readdirSync } = await import("node:fs");
  const { dirname } = await import("node:path");
  while (readdirSync(dirname(path)).length === 0) {}
}
const holder = acquireHomeLock(path);
process.stdout.write((holder === undefined ? "won" : "refused " + holder) + "\\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

function race(path: string, count: number, options: { slowWritesMs?: number; staggerMs?: number; afterFirstWrite?: boolean } = {}): Promise<{ children: ChildProcess[]; results: string[] }> {
  const at = Date.now() + 1_000;
  const env = { ...process.env, ...(options.slowWritesMs ? { SLOW_WRITES: String(options.slowWritesMs) } : {}) };
  const children = Array.from({ length: count }, (_, index) =>
    spawn(process.execPath, ["--input-type=module", "-e", racer, path, String(at + index * (options.staggerMs ?? 0)), ...(options.afterFirstWrite && index > 0 ? ["after"] : [])], {
      stdio: ["pipe", "pipe", "inherit"],
      env,
    }),
  );
  return Promise.all(
    children.map(
      (child) =>
        new Promise<string>((resolve, reject) => {
          let out = "";
          child.stdout!.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            if (out.endsWith("\n")) resolve(out.trim());
          });
          child.once("exit", (code) => reject(new Error(`racer exited ${code} before answering`)));
        }),
    ),
  ).then((results) => ({ children, results }));
}

function end(children: ChildProcess[]): Promise<void> {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.stdin!.end();
        }),
    ),
  ).then(() => undefined);
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the home lock under simultaneous starters", () => {
  it("exactly one of six starters takes a free lock, every round, and the others name its pid", async () => {
    for (let round = 0; round < 4; round++) {
      const dir = mkdtempSync(join(tmpdir(), "aide-lock-"));
      dirs.push(dir);
      const { children, results } = await race(join(dir, "supervisor.lock"), 6);
      try {
        const winners = children.filter((_, index) => results[index] === "won");
        expect(winners, `round ${round}: ${results.join(", ")}`).toHaveLength(1);
        for (const result of results.filter((each) => each !== "won")) expect(result).toBe(`refused ${winners[0]!.pid}`);
        // No private file is left beside the lock.
        expect(readdirSync(dir)).toEqual(["supervisor.lock"]);
      } finally {
        await end(children);
      }
    }
  }, 120_000);

  it("a starter slow to write its lock is not taken for a dead one: the second starter is refused", async () => {
    // The lock used to be created empty (O_EXCL) and filled after: a starter reading it in between
    // took it for a dead starter's, removed it and took the home as well.
    const dir = mkdtempSync(join(tmpdir(), "aide-lock-"));
    dirs.push(dir);
    // The second starter begins while the first is inside its slow write, however late each process
    // came up on a loaded machine. Which of them links first is the kernel's choice; what may never
    // happen is both winning, or the loser naming anyone but the winner.
    const { children, results } = await race(join(dir, "supervisor.lock"), 2, { slowWritesMs: 600, afterFirstWrite: true });
    try {
      const winner = results.indexOf("won");
      expect(winner, results.join(", ")).not.toBe(-1);
      expect(results[1 - winner]).toBe(`refused ${children[winner]!.pid}`);
      expect(readdirSync(dir)).toEqual(["supervisor.lock"]);
    } finally {
      await end(children);
    }
  }, 60_000);

  it("private files left by a starter killed mid-way are removed by the next start; a live starter's are not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-lock-"));
    dirs.push(dir);
    writeFileSync(join(dir, "supervisor.lock.2147483646.0123456789ab"), "2147483646\n");
    writeFileSync(join(dir, "supervisor.lock.stale.2147483646.0123456789ab"), "1\n");
    writeFileSync(join(dir, `supervisor.lock.${process.pid}.0123456789ab`), `${process.pid}\n`);
    const { children, results } = await race(join(dir, "supervisor.lock"), 1);
    try {
      expect(results).toEqual(["won"]);
      expect(readdirSync(dir).sort()).toEqual(["supervisor.lock", `supervisor.lock.${process.pid}.0123456789ab`]);
    } finally {
      await end(children);
    }
  }, 60_000);

  it("a stale lock (its pid gone, or empty) is taken over by exactly one of the starters", async () => {
    for (const stale of ["2147483646\n", ""]) {
      for (let round = 0; round < 2; round++) {
        const dir = mkdtempSync(join(tmpdir(), "aide-lock-"));
        dirs.push(dir);
        writeFileSync(join(dir, "supervisor.lock"), stale);
        const { children, results } = await race(join(dir, "supervisor.lock"), 4);
        try {
          expect(
            results.filter((each) => each === "won"),
            `stale ${JSON.stringify(stale)}, round ${round}: ${results.join(", ")}`,
          ).toHaveLength(1);
          expect(readdirSync(dir)).toEqual(["supervisor.lock"]);
        } finally {
          await end(children);
        }
      }
    }
  }, 120_000);
});
