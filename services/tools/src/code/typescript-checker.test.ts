import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TypeScriptChecker } from "./typescript-checker.js";
import { plainWorker } from "./diagnostics-worker-command.js";
import { processAlive } from "../../../../tests/helpers/service-process.js";

const scratch = mkdtempSync(join(tmpdir(), "aide-checker-"));
const echo = join(scratch, "echo.mjs");
// A worker that answers every request with no problems and its own pid as the message.
writeFileSync(
  echo,
  'import { createInterface } from "node:readline";\ncreateInterface({ input: process.stdin }).on("line", (line) => { const { id } = JSON.parse(line); process.stdout.write(JSON.stringify({ id, results: [[{ line: 1, column: 1, code: "PID", severity: "error", message: String(process.pid), text: "" }]] }) + "\\n"); });\n',
);

const pidOf = (outcome: Awaited<ReturnType<TypeScriptChecker["check"]>>) => (outcome.ok ? Number(outcome.results[0][0].message) : -1);

describe("TypeScriptChecker workers", () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("reuses one warm worker per workspace and stops the least recently used past maxWorkers", async () => {
    const checker = new TypeScriptChecker({ command: plainWorker(echo), timeoutMs: 60_000, idleMs: 600_000, maxWorkers: 2 });
    try {
      const a = pidOf(await checker.check("/ws/a", "x.ts", ["x"]));
      expect(pidOf(await checker.check("/ws/a", "x.ts", ["y"]))).toBe(a);
      const b = pidOf(await checker.check("/ws/b", "x.ts", ["x"]));
      expect(pidOf(await checker.check("/ws/a", "x.ts", ["z"]))).toBe(a);
      const c = pidOf(await checker.check("/ws/c", "x.ts", ["x"]));
      expect(new Set([a, b, c]).size).toBe(3);
      await expect.poll(() => processAlive(b), { timeout: 30_000 }).toBe(false);
      expect(processAlive(a)).toBe(true);
    } finally {
      checker.close();
    }
  });
});
