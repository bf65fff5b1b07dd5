import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const fixtures = join(import.meta.dirname, "fixtures", "summary-reporter");
const vitestBin = join(createRequire(import.meta.url).resolve("vitest/package.json"), "..", "vitest.mjs");

describe("the summary reporter", () => {
  it("counts the tests of a file whose beforeAll threw, and a file that failed to import, as failed, not skipped", async () => {
    // A child vitest over three fixture files, with only this reporter: 2 tests behind a throwing
    // beforeAll, 1 file that throws on import, 1 passing test, 1 `it.skip`, 1 skipped at run time.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
    const child = await promisify(execFile)(process.execPath, [vitestBin, "run", "--config", "./vitest.config.mjs"], { cwd: fixtures, env, timeout: 120_000 }).then(
      (result) => ({ code: 0, stdout: result.stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? "" }),
    );
    expect(child.stdout.trim().split("\n").at(-1)).toBe("1 passed, 3 failed, 2 skipped");
    expect(child.code).toBe(1);
  });
});
