import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { changedSince } from "./changed-since.js";
import { openWorkspace, type Workspace } from "../jail/workspace.js";

describe("changedSince", () => {
  let root: string;
  let workspace: Workspace;
  let since: number;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-changed-"));
    mkdirSync(join(root, ".git", "hooks"), { recursive: true });
    mkdirSync(join(root, ".git", "objects"), { recursive: true });
    mkdirSync(join(root, "node_modules", "x"), { recursive: true });
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "before.ts"), "x");
    await new Promise((resolve) => setTimeout(resolve, 50));
    since = Date.now() - 10;
    writeFileSync(join(root, "src", "after.ts"), "y");
    writeFileSync(join(root, ".git", "hooks", "pre-commit"), "#!/bin/sh\n");
    writeFileSync(join(root, ".git", "config"), "[core]\n");
    writeFileSync(join(root, ".git", "objects", "ab"), "blob");
    writeFileSync(join(root, "node_modules", "x", "index.js"), "z");
    symlinkSync("/etc", join(root, "src", "link"));
    workspace = await openWorkspace(root, []);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds files and links changed since the time, git hooks and config included, dependencies and objects skipped", async () => {
    const result = await changedSince(workspace, since);
    expect(result).toEqual({ paths: [".git/config", ".git/hooks/pre-commit", "src/after.ts", "src/link"], incomplete: false });
  });

  it("says when its caps cut the walk short", async () => {
    const result = await changedSince(workspace, since, { maxEntries: 2 });
    expect(result.incomplete).toBe(true);
  });
});
