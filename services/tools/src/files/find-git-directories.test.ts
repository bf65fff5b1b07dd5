import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findGitDirectories } from "./find-git-directories.js";

describe("findGitDirectories", () => {
  let scratch: string;
  let root: string;
  const dir = (...parts: string[]) => mkdirSync(join(root, ...parts), { recursive: true });
  beforeAll(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-gitdirs-")));
    root = join(scratch, "ws");
    dir(".git", "hooks");
    dir("app", ".gitstore", "objects");
    dir("app", ".gitstore", "refs");
    writeFileSync(join(root, "app", ".gitstore", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "app", ".git"), "gitdir: .gitstore\n");
    dir("bare.git", "objects");
    dir("bare.git", "refs");
    writeFileSync(join(root, "bare.git", "HEAD"), "ref: refs/heads/main\n");
    dir("linked");
    dir("real-gitdir");
    symlinkSync(join(root, "real-gitdir"), join(root, "linked", ".git"));
    dir("away");
    mkdirSync(join(scratch, "outside-gitdir"));
    writeFileSync(join(root, "away", ".git"), `gitdir: ${join(scratch, "outside-gitdir")}\n`);
    dir("node_modules", "dep", ".git");
    dir("deep", "a", "b", "c", ".git");
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("finds .git folders, gitdir files inside the workspace, bare repositories and a symlinked .git; not a pointer outside or node_modules", async () => {
    const scan = await findGitDirectories(root);
    const found = scan.directories.map((d) => d.relative).sort();
    expect(found).toEqual([".git", "app/.gitstore", "bare.git", "deep/a/b/c/.git", "real-gitdir"]);
    expect(scan.directories.find((d) => d.relative === "app/.gitstore")?.pointerFile).toBe(join(root, "app", ".git"));
    expect(scan.complete).toBe(true);
  });

  it("says when its bounds cut the scan short", async () => {
    const shallow = await findGitDirectories(root, { maxEntries: 20_000, maxDepth: 2 });
    expect(shallow.complete).toBe(false);
    expect(shallow.directories.map((d) => d.relative)).not.toContain("deep/a/b/c/.git");
    const few = await findGitDirectories(root, { maxEntries: 3, maxDepth: 12 });
    expect(few.complete).toBe(false);
  });
});
