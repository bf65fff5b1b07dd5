import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { descendantsOf, hostProcessesWith } from "./host-processes.js";
import { findProgram } from "../src/code/find-program.js";
import { findGopls } from "../src/code/gopls-checker.js";
import { processAlive } from "../../../tests/helpers/service-process.js";

const main = 'package main\n\nimport "fmt"\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n\nfunc main() {\n\tfmt.Println(add(1, 2))\n}\n';
// A second file of the package: a break in it is seen from main.go through the package, as go build sees it.
const util = "package main\n\nfunc twice(n int) int {\n\treturn add(n, n)\n}\n";
const go = findProgram("go", ["version"]);
// Where scripts/install.sh puts gopls (~/go/bin) or on PATH, as the service looks for it.
const gopls = findGopls();
const skipReason =
  go === undefined
    ? " (skipped: no go on PATH, which gopls needs)"
    : gopls === undefined
      ? " (skipped: gopls is not installed; scripts/install.sh --with-browser installs gopls@v0.23.0 into ~/go/bin)"
      : "";

/** The gopls processes under the tools service (inside bubblewrap's pid namespace, seen from here). */
const goplsUnder = (servicePid: number) => descendantsOf(servicePid).filter((entry) => entry.args[0] === gopls);

describe.skipIf(skipReason !== "")(`Go diagnostics from a real gopls in its mount jail${skipReason}`, () => {
  let h: ToolsHarness;
  let servicePid = 0;
  beforeAll(async () => {
    // The state folder holds gopls's and go's caches; the wait covers a cold gopls loading the package.
    h = await startToolsHarness({ stateInScratch: true, env: { AIDE_TOOLS_GOPLS: `${gopls} serve`, AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000", AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: "60000" } });
    servicePid = h.service.child.pid ?? 0;
    writeFileSync(join(h.workspace, "go.mod"), "module example.com/calc\n\ngo 1.22\n");
    writeFileSync(join(h.workspace, "main.go"), main);
    writeFileSync(join(h.workspace, "util.go"), util);
  }, 120_000);
  afterAll(async () => h?.stop());

  it("a clean .go file: gopls type-checked it and found no problems", async () => {
    const done = await h.exec("diagnostics", { path: "main.go" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata).toEqual({ source: "gopls", problems: 0, errors: 0, type_checked: true });
    expect(done.result.output).toBe("main.go: no problems (gopls).");
  });

  it("the check ran in a real gopls process, jailed by bubblewrap under the tools service", () => {
    // One gopls, serving (its telemetry child is off: no second process).
    expect(
      goplsUnder(servicePid).map((entry) => entry.args),
      JSON.stringify(descendantsOf(servicePid)),
    ).toEqual([[gopls, "serve"]]);
    const jail = descendantsOf(servicePid).find((entry) => entry.args[0] === "bwrap" && entry.args.includes(gopls!));
    expect(jail?.args).toEqual(expect.arrayContaining(["--unshare-net", "--unshare-pid", "--die-with-parent"]));
  });

  it("an edit that introduces a type error reports it as the one new problem, with file, line and column", async () => {
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\treturn a + b\n", replace: "\treturn a + total\n" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toEqual({
      source: "gopls",
      new_problems: 1,
      files: { "main.go": 1 },
      type_checked: true,
      problems: [{ path: "main.go", line: 6, column: 13, code: "UndeclaredName", message: "undefined: total" }],
    });
    expect(done.result.output).toContain("New problems this edit introduced (gopls):\n  main.go:6:13 UndeclaredName undefined: total");
  });

  it("a clean edit (the fix) reports no new problem", async () => {
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\treturn a + total\n", replace: "\treturn a + b\n" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toEqual({ source: "gopls", new_problems: 0, files: { "main.go": 0 }, type_checked: true });
    expect(done.result.output).toContain("No new problems (gopls).");
  });

  it("an edit that breaks a caller in another file of the package: the edited file's check sees its own break only", async () => {
    // add() now takes one argument: util.go's call breaks, main.go's own call too (the edited file's new problem).
    const done = await h.exec("replace_in_file", { path: "main.go", search: "func add(a int, b int) int {\n\treturn a + b\n}", replace: "func add(a int) int {\n\treturn a\n}" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toMatchObject({
      source: "gopls",
      new_problems: 1,
      files: { "main.go": 1 },
      problems: [{ path: "main.go", line: 10, code: "WrongArgCount" }],
    });
    const other = await h.exec("diagnostics", { path: "util.go" });
    expect(other.result.metadata, other.result.output).toMatchObject({ source: "gopls", errors: 1 });
    expect(other.result.output).toMatch(/util\.go:4:\d+ WrongArgCount too many arguments in call to add/);
    writeFileSync(join(h.workspace, "main.go"), main);
  });

  it("a vet-style finding from gopls's analyzers (a Printf verb of the wrong type) is reported as new", async () => {
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\tfmt.Println(add(1, 2))\n", replace: '\tfmt.Printf("%d\\n", "two")\n' });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toMatchObject({
      source: "gopls",
      new_problems: 1,
      files: { "main.go": 1 },
      type_checked: true,
      problems: [{ path: "main.go", line: 10, code: "printf" }],
    });
    expect(done.result.output).toMatch(/main\.go:10:\d+ printf fmt\.Printf format %d has arg "two" of wrong type string/);
  });

  it("stopping the service reaps gopls and its jail: no process of it is left", async () => {
    const before = descendantsOf(servicePid).map((entry) => entry.pid);
    expect(before.length).toBeGreaterThan(0);
    await h.service.stop();
    await expect.poll(() => before.filter(processAlive), { timeout: 30_000 }).toEqual([]);
  });
});

// In the aide up profile the home is hidden: gopls is found on PATH (its folder bound back), as a person's stack finds it.
const onPath = findProgram("gopls", ["version"]);
const sandboxSkip = skipReason !== "" ? skipReason : onPath === undefined ? " (skipped: gopls is not on PATH, where the aide up profile finds it)" : "";

describe.skipIf(sandboxSkip !== "")(`gopls in the tools service's aide up sandbox, found on PATH${sandboxSkip}`, () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ sandboxed: true, env: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000", AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: "60000" } });
    writeFileSync(join(h.workspace, "go.mod"), "module example.com/calc\n\ngo 1.22\n");
    writeFileSync(join(h.workspace, "main.go"), main);
  }, 120_000);
  afterAll(async () => h?.stop());

  it("starts gopls inside the service's sandbox and reports the edit's new type error", async () => {
    const warm = await h.exec("diagnostics", { path: "main.go" });
    expect(warm.result.metadata, warm.result.output).toEqual({ source: "gopls", problems: 0, errors: 0, type_checked: true });
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\treturn a + b\n", replace: "\treturn a + total\n" });
    expect(done.result.metadata.diagnostics, done.result.output).toMatchObject({ source: "gopls", new_problems: 1, problems: [{ path: "main.go", line: 6, column: 13, code: "UndeclaredName" }] });
  });
});

describe.skipIf(skipReason !== "")(`a gopls that passes its timeout${skipReason}`, () => {
  let h: ToolsHarness;
  let servicePid = 0;
  beforeAll(async () => {
    // A real gopls with a timeout shorter than its first package load: the check cannot finish.
    h = await startToolsHarness({ stateInScratch: true, env: { AIDE_TOOLS_GOPLS: `${gopls} serve`, AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: "1", AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
    servicePid = h.service.child.pid ?? 0;
    writeFileSync(join(h.workspace, "go.mod"), "module example.com/calc\n\ngo 1.22\n");
    writeFileSync(join(h.workspace, "main.go"), main);
  });
  afterAll(async () => h?.stop());

  it('is killed at its timeout: a failed check that says so, never "no problems", and no gopls left', async () => {
    const done = await h.exec("diagnostics", { path: "main.go" });
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata).toMatchObject({ error_code: "TIMEOUT", timed_out: true, source: "gopls" });
    expect(done.result.output).toContain("gopls did not answer in 1 ms and was stopped");
    await expect.poll(() => goplsUnder(servicePid), { timeout: 30_000 }).toEqual([]);
    // Nothing of the jail is left anywhere, bubblewrap's namespace init included (killed this early, it once was, orphaned).
    await expect.poll(() => hostProcessesWith(join(h.scratch, "state", "gopls-cache")), { timeout: 30_000 }).toEqual([]);
    const listed = await h.exec("list_dir", { path: "." });
    expect(listed.result.is_error).toBe(false);
  });
});
