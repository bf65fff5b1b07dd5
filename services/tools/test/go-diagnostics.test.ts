import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execaSync } from "execa";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

const main = 'package main\n\nimport "fmt"\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n\nfunc main() {\n\tfmt.Println(add(1, 2))\n}\n';
/** This machine has no Go toolchain: the tests below are about that path (with Go installed, go vet runs instead). */
const goPresent = execaSync("sh", ["-c", "command -v go || command -v gopls"], { reject: false }).exitCode === 0;

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
    expect(done.result.metadata.diagnostics).toMatchObject({ source: "tree-sitter syntax", new_problems: 1, files: { "main.go": 1 }, type_checked: false, unavailable_reason: "GO_CHECKER_ABSENT", problems: [{ path: "main.go", line: 6, column: 12, code: "syntax-error" }] });
    expect(done.result.output).toMatch(/New problems this edit introduced \(tree-sitter syntax\):\n {2}main\.go:6:12 syntax-error cannot parse "\)"/);
    expect(done.result.output).not.toMatch(/main\.go:1[34]:/);
    expect(done.result.output).toContain("No Go checker is available");
    expect(readFileSync(join(h.workspace, "main.go"), "utf8")).toContain("return a +) b");
  });
});
