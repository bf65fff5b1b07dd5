import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { processAlive } from "../../../tests/helpers/service-process.js";

const ids = 'type Id = number;\nconst legacy: number = "old";\nexport const first: Id = 1;\nexport function show(id: Id): string {\n  return String(id);\n}\n';

describe("diagnostics over the bus (the TypeScript checker)", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    // The edit waits long enough for a cold checker on a loaded machine; the checker is warmed first anyway.
    h = await startToolsHarness({ env: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
    writeFileSync(join(h.workspace, "tsconfig.json"), '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022" }, "include": ["src"] }\n');
    mkdirSync(join(h.workspace, "src"));
    writeFileSync(join(h.workspace, "src/ids.ts"), ids);
  });
  afterAll(async () => h?.stop());

  it("lists a file's problems with the project's tsconfig", async () => {
    const done = await h.exec("diagnostics", { path: "src/ids.ts" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.problems).toBe(1);
    expect(done.result.output).toBe("src/ids.ts:2:7 TS2322 Type 'string' is not assignable to type 'number'.");
  });

  it("appends exactly the problem an edit introduced elsewhere in the file, not the file's old one", async () => {
    const done = await h.exec("replace_in_file", { path: "src/ids.ts", search: "type Id = number;", replace: "type Id = string;" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics).toEqual({
      source: "typescript",
      new_problems: 1,
      files: { "src/ids.ts": 1 },
      type_checked: true,
      problems: [{ path: "src/ids.ts", line: 3, column: 14, code: "TS2322", message: "Type 'number' is not assignable to type 'string'." }],
    });
    expect(done.result.output).toContain("New problems this edit introduced (typescript):\n  src/ids.ts:3:14 TS2322 Type 'number' is not assignable to type 'string'.");
    expect(done.result.output).not.toContain("src/ids.ts:2:");
    expect(readFileSync(join(h.workspace, "src/ids.ts"), "utf8")).toContain("type Id = string;");
  });

  it("says no new problems after an edit that adds none, and refuses a file type without a checker", async () => {
    const done = await h.exec("replace_in_file", { path: "src/ids.ts", search: "return String(id);", replace: "return `${id}`;" });
    expect(done.result.metadata.diagnostics.new_problems).toBe(0);
    expect(done.result.output).toContain("No new problems (typescript).");
    writeFileSync(join(h.workspace, "notes.md"), "# x\n");
    const refused = await h.exec("diagnostics", { path: "notes.md" });
    expect(refused.result.metadata.error_code).toBe("LANGUAGE_UNSUPPORTED");
  });
});

describe("a diagnostics worker that hangs", () => {
  let h: ToolsHarness;
  const scripts = mkdtempSync(join(tmpdir(), "aide-hang-"));
  beforeAll(async () => {
    const hang = join(scripts, "hang.mjs");
    writeFileSync(hang, "process.stdin.resume();\nsetInterval(() => {}, 1_000_000);\n");
    h = await startToolsHarness({ env: { AIDE_TOOLS_DIAGNOSTICS_WORKER: hang, AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: "1500", AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
  });
  afterAll(async () => {
    await h?.stop();
    rmSync(scripts, { recursive: true, force: true });
  });

  it("is killed at its timeout; the edit is still written and says why it has no diagnostics", async () => {
    const done = await h.exec("write_file", { path: "a.ts", content: "export const a: number = 1;\n" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(readFileSync(join(h.workspace, "a.ts"), "utf8")).toBe("export const a: number = 1;\n");
    const diagnostics = done.result.metadata.diagnostics;
    expect(diagnostics.timed_out).toBe(true);
    expect(done.result.output).toContain("No diagnostics: the TypeScript checker did not answer in 1500 ms and was stopped.");
    await expect.poll(() => processAlive(diagnostics.worker_pid), { timeout: 30_000 }).toBe(false);
  });
});
