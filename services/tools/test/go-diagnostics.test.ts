import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execaSync } from "execa";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

const main = 'package main\n\nimport "fmt"\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n\nfunc main() {\n\tfmt.Println(add(1, 2))\n}\n';
/** Whether go (or gopls) is on PATH: the syntax fallback is tested without, go vet for real with it. */
const goPresent = execaSync("sh", ["-c", "command -v go || command -v gopls"], { reject: false }).exitCode === 0;
const goOnPath = execaSync("sh", ["-c", "command -v go"], { reject: false }).exitCode === 0;

describe.skipIf(goPresent)("Go diagnostics without go or gopls on PATH: the syntax fallback, said plainly", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ env: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
    writeFileSync(join(h.workspace, "go.mod"), "module example.com/calc\n\ngo 1.22\n");
    writeFileSync(join(h.workspace, "main.go"), main);
  });
  afterAll(async () => h?.stop());

  it("diagnostics on a clean .go file reports no syntax errors, says no Go checker ran, and is not a type check", async () => {
    const done = await h.exec("diagnostics", { path: "main.go" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata).toEqual({ source: "tree-sitter syntax", problems: 0, errors: 0, type_checked: false, unavailable_reason: "GO_CHECKER_ABSENT" });
    expect(done.result.output).toContain("main.go: no syntax errors (tree-sitter syntax); not type-checked.");
    expect(done.result.output).toContain("No Go checker is available (go and gopls are not on PATH in the tools sandbox)");
    expect(done.result.output).not.toContain("no problems");
  });

  it("an edit that breaks Go syntax yields tree-sitter's syntax error, only the new one", async () => {
    // An old syntax error at the end of the file stays; the edit adds another in add().
    writeFileSync(join(h.workspace, "main.go"), `${main}\nfunc broken( {\n`);
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\treturn a + b\n", replace: "\treturn a +) b\n" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics).toMatchObject({
      source: "tree-sitter syntax",
      new_problems: 1,
      files: { "main.go": 1 },
      type_checked: false,
      unavailable_reason: "GO_CHECKER_ABSENT",
      problems: [{ path: "main.go", line: 6, column: 12, code: "syntax-error" }],
    });
    expect(done.result.output).toMatch(/New problems this edit introduced \(tree-sitter syntax\):\n {2}main\.go:6:12 syntax-error cannot parse "\)"/);
    expect(done.result.output).not.toMatch(/main\.go:1[34]:/);
    expect(done.result.output).toContain("No Go checker is available");
    expect(readFileSync(join(h.workspace, "main.go"), "utf8")).toContain("return a +) b");
  });
});

describe.runIf(goOnPath)("Go diagnostics with go on PATH and gopls off: real go vet in its mount jail", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    // The state folder holds go's build cache: the first check compiles the imports cold (a minute on a loaded machine), later ones reuse it.
    // gopls off: go vet is the checker where gopls is not installed (gopls-diagnostics.test.ts tests gopls).
    h = await startToolsHarness({ stateInScratch: true, env: { AIDE_TOOLS_GOPLS: "off", AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000", AIDE_TOOLS_DIAGNOSTICS_TIMEOUT_MS: "50000" } });
    writeFileSync(join(h.workspace, "go.mod"), "module example.com/calc\n\ngo 1.22\n");
    writeFileSync(join(h.workspace, "main.go"), main);
    // A cold cache may outlast one check's timeout; each try keeps what it compiled, so the next gets further.
    for (let attempt = 0; attempt < 6; attempt++) {
      const done = await h.exec("diagnostics", { path: "main.go" });
      if (done.result.metadata.error_code !== "TIMEOUT") break;
    }
  }, 360_000);
  afterAll(async () => h?.stop());

  it("a clean .go file: go vet type-checked it and found no problems", async () => {
    const done = await h.exec("diagnostics", { path: "main.go" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata).toEqual({ source: "go vet", problems: 0, errors: 0, type_checked: true });
    expect(done.result.output).toBe("main.go: no problems (go vet).");
  });

  it("an edit that breaks a type reports exactly that new problem, from go vet, type-checked", async () => {
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\treturn a + b\n", replace: "\treturn a + total\n" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toEqual({
      source: "go vet",
      new_problems: 1,
      files: { "main.go": 1 },
      type_checked: true,
      problems: [{ path: "main.go", line: 6, column: 13, code: "go-vet", message: "undefined: total" }],
    });
    expect(done.result.output).toContain("New problems this edit introduced (go vet):\n  main.go:6:13 go-vet undefined: total");
    expect(readFileSync(join(h.workspace, "main.go"), "utf8")).toContain("return a + total");
  });

  it("a vet finding (a Printf verb of the wrong type) an edit adds is reported as new, the old type error left out", async () => {
    // The file still has the undefined name from the last edit: only a type-correct file gets vet's analyzers, so fix it first.
    writeFileSync(join(h.workspace, "main.go"), main);
    const done = await h.exec("replace_in_file", { path: "main.go", search: "\tfmt.Println(add(1, 2))\n", replace: '\tfmt.Printf("%d\\n", "two")\n' });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(done.result.metadata.diagnostics, done.result.output).toMatchObject({
      source: "go vet",
      new_problems: 1,
      files: { "main.go": 1 },
      type_checked: true,
      problems: [{ path: "main.go", line: 10, code: "go-vet" }],
    });
    expect(done.result.output).toMatch(/main\.go:10:\d+ go-vet fmt\.Printf format %d has arg "two" of wrong type string/);
  });

  it('a Go file outside any module is a failed check with go\'s reason, never "no problems"', async () => {
    mkdirSync(join(h.scratch, "ws", "loose"), { recursive: true });
    rmSync(join(h.workspace, "go.mod"));
    writeFileSync(join(h.workspace, "loose", "x.go"), "package loose\n");
    const done = await h.exec("diagnostics", { path: "loose/x.go" });
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata).toMatchObject({ error_code: "TOOL_FAILED", source: "go vet" });
    expect(done.result.output).toMatch(/go vet failed \(exit 1\): go: go\.mod file not found/);
  });
});
