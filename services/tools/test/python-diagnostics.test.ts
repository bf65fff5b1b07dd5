import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { processAlive } from "../../../tests/helpers/service-process.js";

// A small real Python project: a package, a module that imports another, a pyright config, and one old problem.
const models = 'from dataclasses import dataclass\n\n\n@dataclass\nclass User:\n    name: str\n    age: int\n\n\ndef greeting(user: User) -> str:\n    return "hello " + user.name\n';
const service = 'from app.models import User, greeting\n\nlegacy: int = "old"\n\n\ndef welcome(name: str) -> str:\n    user = User(name=name, age=3)\n    return greeting(user)\n';

/** Processes whose command line has `marker` (a hung language server left behind would show here). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe("Python diagnostics over the bus (pyright's language server)", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ env: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
    writeFileSync(join(h.workspace, "pyrightconfig.json"), '{ "include": ["app"], "pythonVersion": "3.11" }\n');
    mkdirSync(join(h.workspace, "app"));
    writeFileSync(join(h.workspace, "app/__init__.py"), "");
    writeFileSync(join(h.workspace, "app/models.py"), models);
    writeFileSync(join(h.workspace, "app/service.py"), service);
  });
  afterAll(async () => h?.stop());

  it("lists a Python file's problems as pyright reports them", async () => {
    const done = await h.exec("diagnostics", { path: "app/service.py" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata).toMatchObject({ source: "pyright", problems: 1, errors: 1 });
    expect(done.result.output).toMatch(/^app\/service\.py:3:15 reportAssignmentType Type "Literal\['old'\]" is not assignable to declared type "int"/);
  });

  it("appends exactly the undefined name an edit introduced, not the file's old problem", async () => {
    const done = await h.exec("replace_in_file", { path: "app/service.py", search: "    return greeting(user)", replace: "    return greting(user)" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toEqual({
      source: "pyright",
      new_problems: 1,
      files: { "app/service.py": 1 },
      type_checked: true,
      problems: [{ path: "app/service.py", line: 8, column: 12, code: "reportUndefinedVariable", message: '"greting" is not defined' }],
    });
    expect(done.result.output).toContain('New problems this edit introduced (pyright):\n  app/service.py:8:12 reportUndefinedVariable "greting" is not defined');
    expect(done.result.output).not.toContain("reportAssignmentType");
    expect(readFileSync(join(h.workspace, "app/service.py"), "utf8")).toContain("return greting(user)");
  });

  it("sees a break in another module through the import (the warm server reads the project)", async () => {
    const done = await h.exec("replace_in_file", { path: "app/service.py", search: "    user = User(name=name, age=3)", replace: '    user = User(name=name, age="three")' });
    expect(done.result.metadata.diagnostics.new_problems).toBe(1);
    expect(done.result.output).toMatch(/app\/service\.py:7:\d+ reportArgumentType Argument of type "Literal\['three'\]" cannot be assigned to parameter "age" of type "int"/);
    expect(done.result.output).not.toContain("greting");
  });

  it("a Python file with no type errors verifies: diagnostics says no problems and counts no errors", async () => {
    const done = await h.exec("diagnostics", { path: "app/models.py" });
    expect(done.result.metadata).toMatchObject({ source: "pyright", problems: 0, errors: 0 });
    expect(done.result.metadata.type_checked).toBe(true);
    expect(done.result.output).toBe("app/models.py: no problems (pyright).");
  });
});

describe("a Python language server that hangs", () => {
  let h: ToolsHarness;
  // A real program that never speaks LSP, in the documented command setting; the number marks its processes.
  const marker = "86400123";
  beforeAll(async () => {
    h = await startToolsHarness({ env: { AIDE_TOOLS_PYRIGHT_COMMAND: `/usr/bin/sleep ${marker}`, AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: "1500", AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
  });
  afterAll(async () => h?.stop());

  it("is killed at its timeout; the edit is still written and says why it has no diagnostics", async () => {
    const done = await h.exec("write_file", { path: "a.py", content: "x: int = 1\n" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(readFileSync(join(h.workspace, "a.py"), "utf8")).toBe("x: int = 1\n");
    const diagnostics = done.result.metadata.diagnostics;
    expect(diagnostics).toMatchObject({ source: "pyright", unavailable: true, timed_out: true });
    expect(done.result.output).toContain("No diagnostics: pyright did not answer in 1500 ms and was stopped.");
    await expect.poll(() => processAlive(diagnostics.worker_pid), { timeout: 30_000 }).toBe(false);
    await expect.poll(() => processesWith(marker), { timeout: 30_000 }).toEqual([]);
  });

  it("the next check starts a new server (and it is killed again), the service still answers", async () => {
    const done = await h.exec("diagnostics", { path: "a.py" });
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata).toMatchObject({ error_code: "TIMEOUT", timed_out: true, source: "pyright" });
    const listed = await h.exec("list_dir", { path: "." });
    expect(listed.result.is_error).toBe(false);
  });
});

describe("pyright in the tools service's aide up sandbox", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ sandboxed: true, env: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
    mkdirSync(join(h.workspace, "app"));
    writeFileSync(join(h.workspace, "app/__init__.py"), "");
    writeFileSync(join(h.workspace, "app/models.py"), models);
    writeFileSync(join(h.workspace, "app/service.py"), service);
  });
  afterAll(async () => h?.stop());

  it("starts the language server from the installed package inside the service's sandbox and reports the new problem", async () => {
    const done = await h.exec("replace_in_file", { path: "app/service.py", search: "    return greeting(user)", replace: "    return greting(user)" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toMatchObject({ source: "pyright", new_problems: 1, files: { "app/service.py": 1 } });
    expect(done.result.output).toContain('app/service.py:8:12 reportUndefinedVariable "greting" is not defined');
  });
});
