import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AideError } from "@aide/contracts";
import { openWorkspace, type Workspace } from "./workspace.js";
import { listTree, prepareSwap, secretText, startSwapRacer } from "../../../../bench/lib/swap-racer.js";

/** The jail's own operations, in this process, against a racer process: many more rounds than over the bus. */
const rounds = 1500;

describe("the jail's walk against a directory/symlink swap race", () => {
  let scratch: string;
  let workspace: Workspace;
  let outside: string;
  beforeAll(async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-jail-race-")));
    mkdirSync(join(scratch, "ws"));
    outside = join(scratch, "outside");
    prepareSwap(join(scratch, "ws"), outside);
    workspace = await openWorkspace(join(scratch, "ws"), []);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("never reads, lists or writes outside, and closes every descriptor it opened", async () => {
    const before = listTree(outside);
    const descriptorsBefore = readdirSync("/proc/self/fd").length;
    const racer = await startSwapRacer(join(scratch, "ws"));
    const seen = { inside: 0, leaked: [] as string[], refused: 0, written: 0 };
    const refusedOrGone = (error: unknown) => {
      if (error instanceof AideError || ["ENOENT", "EISDIR", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) seen.refused += 1;
      else throw error;
    };
    try {
      for (let index = 0; index < rounds; index += 1) {
        try {
          const opened = await workspace.openFile("swap/file.txt");
          if (opened.kind === "file") {
            const text = await opened.handle.readFile("utf8").finally(() => opened.handle.close());
            if (text.includes(secretText)) seen.leaked.push(text);
            else seen.inside += 1;
          }
        } catch (error) {
          refusedOrGone(error);
        }
        try {
          const listed = await workspace.openDirectory("swap");
          if (listed.kind === "directory") {
            const names = listed.handle.entries().map((entry) => entry.name);
            listed.handle.close();
            if (names.some((name) => name.includes(secretText))) seen.leaked.push(names.join(","));
          }
        } catch (error) {
          refusedOrGone(error);
        }
        try {
          await workspace.writeFile(`swap/w-${index % 20}.txt`, Buffer.from(`written ${index}\n`));
          seen.written += 1;
        } catch (error) {
          refusedOrGone(error);
        }
      }
    } finally {
      expect(await racer.stop()).toBeGreaterThan(0);
    }
    expect(seen.leaked).toEqual([]);
    expect(listTree(outside)).toEqual(before);
    expect(seen.inside + seen.written).toBeGreaterThan(0);
    expect(readdirSync("/proc/self/fd").length).toBeLessThanOrEqual(descriptorsBefore + 2);
  });
});
