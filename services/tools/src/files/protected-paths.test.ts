import { describe, expect, it } from "vitest";
import { protectedFlags, protectedMatch } from "./protected-paths.js";
import { confusableComponent, pathSkeleton } from "./confusable-names.js";

describe("protected paths and confusable names", () => {
  it("matches on NFC, case-insensitively, at any depth, and the repositories found in the workspace", () => {
    expect(protectedMatch(".GIT/hooks/pre-commit")?.kind).toBe("git_internals");
    expect(protectedMatch("packages/a/b/AGENTS.md")?.kind).toBe("agent_instructions");
    expect(protectedMatch("src/agents.ts")).toBeUndefined();
    expect(protectedMatch("app/.gitstore/hooks/post-merge")).toBeUndefined();
    expect(protectedMatch("app/.gitstore/hooks/post-merge", { gitDirectories: ["app/.gitstore"] })?.reason).toMatch(/hook/);
    expect(protectedMatch("app/.gitstore-notes.txt", { gitDirectories: ["app/.gitstore"] })).toBeUndefined();
    // A directory name in NFD (as macOS writes it) is compared in NFC.
    expect(protectedMatch("caf\u0065\u0301/.git/config")?.kind).toBe("git_internals");
  });

  it("every agent's rules and instruction files, at any depth, each with the agent named in its reason (issue 26)", () => {
    const cases: Array<[string, RegExp]> = [
      ["AGENTS.md", /AGENTS\.md/],
      ["CLAUDE.md", /Claude Code/],
      ["pkg/CLAUDE.local.md", /Claude Code/],
      ["GEMINI.md", /Gemini/],
      [".cursorrules", /Cursor/],
      ["a/.cursor/rules/style.mdc", /Cursor/],
      [".clinerules", /Cline/],
      ["docs/.clinerules/one.md", /Cline/],
      [".windsurfrules", /Windsurf/],
      [".github/copilot-instructions.md", /Copilot/],
      ["x/.github/copilot-instructions.md", /Copilot/],
      [".roo/rules/a.md", /Roo Code/],
      [".roomodes", /Roo Code/],
      ["deep/er/.kilocode/rules/b.md", /Kilo Code/],
      [".continue/rules/c.md", /Continue/],
      [".aider.conf.yml", /aider/],
      ["sub/.aiderignore", /aider/],
      ["opencode.json", /opencode/],
      ["sub/opencode.json", /opencode/],
      [".codex/instructions.md", /Codex/],
      [".aide/rules.md", /aide/],
    ];
    for (const [path, agent] of cases) {
      const match = protectedMatch(path);
      expect(match?.kind, path).toBe(path.startsWith(".aide/") ? "aide" : "agent_instructions");
      expect(match?.reason, path).toMatch(agent);
      expect(match?.reason, path).toMatch(/instructions/);
    }
    for (const path of ["src/opencode.ts", "notes/claude.txt", "roo.md", "continue.js"]) expect(protectedMatch(path), path).toBeUndefined();
  });

  it("a name that poses as a protected one is protected as what it reads as", () => {
    expect(pathSkeleton(".g\u0456t/hooks")).toBe(".git/hooks");
    expect(protectedMatch(".g\u0456t/hooks/pre-commit")).toMatchObject({ kind: "git_internals", reason: expect.stringContaining('".git/hooks/pre-commit"') });
    expect(protectedMatch("\uFF21GENTS.md")?.kind).toBe("agent_instructions");
    expect(protectedMatch("CLAUDE\u2060.md")?.kind).toBe("agent_instructions");
  });

  it("flags deceptive components and leaves honest non-Latin names alone", () => {
    for (const name of [".g\u0456t", "p\u0430yment.ts", "package\u200B.json", "\u202Etxt.js", "\uFF43laude.md", "\u0441\u0430\u0445", "cafe\u0301.txt"]) {
      expect(confusableComponent(name), name).toBeDefined();
    }
    for (const name of ["README.md", "\u043E\u0442\u0447\u0435\u0442.txt", "readme\u4E2D\u6587.md", "caf\u00E9.md", "\u03B1\u03B2\u03B3\u03B4.txt"]) {
      expect(confusableComponent(name), name).toBeUndefined();
    }
    expect(protectedFlags(["src/p\u0430yment.ts"]).map((flag) => flag.kind)).toEqual(["confusable_name"]);
    expect(protectedFlags([".g\u0456t/config"]).map((flag) => flag.kind)).toEqual(["git_internals", "confusable_name"]);
    expect(protectedFlags(["docs/cafe\u0301.txt"])).toEqual([expect.objectContaining({ kind: "confusable_name", reason: expect.stringContaining("NFC") })]);
    expect(protectedFlags(["docs/caf\u00E9.txt"])).toEqual([]);
  });
});
