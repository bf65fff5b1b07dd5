import { describe, expect, it } from "vitest";
import { compileRules, matchCompiled, matchRules, parseIgnoreFile, parseIgnoreRule } from "./exclude-rules.js";

const rules = (...patterns: string[]) => patterns.map((p) => parseIgnoreRule(p)!);

describe("exclude rules", () => {
  it("matches plain names at any depth, folders only when marked", () => {
    const r = rules("node_modules", "build/");
    expect(matchRules(r, "a/node_modules", "node_modules", true)).toBe(true);
    expect(matchRules(r, "node_modules", "node_modules", false)).toBe(true);
    expect(matchRules(r, "src/build", "build", true)).toBe(true);
    expect(matchRules(r, "src/build", "build", false)).toBeUndefined();
    expect(matchRules(r, "src/builder", "builder", true)).toBeUndefined();
  });

  it("anchors patterns with a slash and expands globs", () => {
    const r = rules("/out", "docs/*.pdf", "**/tmp/**", "*.log", "file?.txt", "[ab].c");
    expect(matchRules(r, "out", "out", true)).toBe(true);
    expect(matchRules(r, "src/out", "out", true)).toBeUndefined();
    expect(matchRules(r, "docs/a.pdf", "a.pdf", false)).toBe(true);
    expect(matchRules(r, "docs/sub/a.pdf", "a.pdf", false)).toBeUndefined();
    expect(matchRules(r, "x/tmp/y", "y", false)).toBe(true);
    expect(matchRules(r, "deep/er/debug.log", "debug.log", false)).toBe(true);
    expect(matchRules(r, "file1.txt", "file1.txt", false)).toBe(true);
    expect(matchRules(r, "file10.txt", "file10.txt", false)).toBeUndefined();
    expect(matchRules(r, "b.c", "b.c", false)).toBe(true);
    expect(matchRules(r, "c.c", "c.c", false)).toBeUndefined();
  });

  it("lets the last match win, so negation re-includes", () => {
    const r = parseIgnoreFile("# comment\n*.log\n!keep.log\n\n", "");
    expect(matchRules(r, "a.log", "a.log", false)).toBe(true);
    expect(matchRules(r, "keep.log", "keep.log", false)).toBe(false);
  });

  it("applies a nested .gitignore only below its folder", () => {
    const r = parseIgnoreFile("secret.txt\n/local\n", "sub");
    expect(matchRules(r, "sub/secret.txt", "secret.txt", false)).toBe(true);
    expect(matchRules(r, "sub/deeper/secret.txt", "secret.txt", false)).toBe(true);
    expect(matchRules(r, "secret.txt", "secret.txt", false)).toBeUndefined();
    expect(matchRules(r, "sub/local", "local", true)).toBe(true);
    expect(matchRules(r, "sub/x/local", "local", true)).toBeUndefined();
  });

  it("compiled rules agree with the plain matcher", () => {
    const sources = ["node_modules", "dist/", "*.tmp", "/rooted", "a/b"];
    const compiled = compileRules(rules(...sources), sources);
    expect(compiled.names.has("node_modules")).toBe(true);
    expect(compiled.directoryNames.has("dist")).toBe(true);
    for (const [path, isDir] of [
      ["x/node_modules", true],
      ["dist", true],
      ["dist", false],
      ["q.tmp", false],
      ["rooted", true],
      ["x/rooted", true],
      ["a/b", false],
      ["c/a/b", false],
      ["src", true],
    ] as const) {
      const name = path.split("/").at(-1)!;
      expect(matchCompiled(compiled, path, name, isDir), path).toBe(matchRules(compiled.rules, path, name, isDir) === true);
    }
  });
});
