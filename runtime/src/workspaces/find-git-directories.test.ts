import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findGitDirectories, findGitDirectoriesSync, type GitDirectoryScanOptions } from "./find-git-directories.js";

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
    dir("deep", "a", ".aide");
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
    const shallow = await findGitDirectories(root, { limits: { maxEntries: 20_000, maxDepth: 2 } });
    expect(shallow.complete).toBe(false);
    expect(shallow.directories.map((d) => d.relative)).not.toContain("deep/a/b/c/.git");
    const few = await findGitDirectories(root, { limits: { maxEntries: 3, maxDepth: 12 } });
    expect(few.complete).toBe(false);
  });

  it("finds the same with the synchronous walk", async () => {
    const walked = await findGitDirectories(root);
    expect(findGitDirectoriesSync(root)).toEqual(walked);
  });

  // The supervisor's rule: real `.git` folders as walked, not node_modules or .aide, depth 6, at most 500.
  const gitFolders: GitDirectoryScanOptions = { reach: "folders", limits: { maxDepth: 6, maxEntries: Number.POSITIVE_INFINITY, maxFound: 500 } };
  // The MCP service's rule: `.git` and `.aide` folders, not node_modules, depth 5, at most 200.
  const protectedFolders: GitDirectoryScanOptions = {
    ...gitFolders,
    names: [".git", ".aide"],
    skipped: ["node_modules"],
    limits: { maxDepth: 5, maxEntries: Number.POSITIVE_INFINITY, maxFound: 200 },
  };

  it("finds only real folders with the names asked for, by the path walked, when reach is folders", () => {
    const scan = findGitDirectoriesSync(root, gitFolders);
    // Not the pointer file app/.git, the bare repository, the symlinked linked/.git or node_modules.
    expect(scan.directories.map((d) => d.relative).sort()).toEqual([".git", "deep/a/b/c/.git"]);
    expect(scan.directories.find((d) => d.relative === ".git")?.directory).toBe(join(root, ".git"));
    expect(
      findGitDirectoriesSync(root, protectedFolders)
        .directories.map((d) => d.relative)
        .sort(),
    ).toEqual([".git", "deep/a/.aide", "deep/a/b/c/.git"]);
  });

  it("keeps each caller's depth and count bounds", () => {
    const shallow = findGitDirectoriesSync(root, { ...gitFolders, limits: { maxDepth: 3, maxEntries: Number.POSITIVE_INFINITY } });
    expect(shallow.directories.map((d) => d.relative)).toEqual([".git"]);
    expect(shallow.complete).toBe(false);
    // deep/a/b/c is depth 4: found at 4, not at 3.
    expect(findGitDirectoriesSync(root, { ...gitFolders, limits: { maxDepth: 4, maxEntries: Number.POSITIVE_INFINITY } }).directories).toHaveLength(2);
    const one = findGitDirectoriesSync(root, { ...gitFolders, limits: { maxDepth: 6, maxEntries: Number.POSITIVE_INFINITY, maxFound: 1 } });
    expect(one.directories.map((d) => d.relative)).toEqual([".git"]);
    expect(one.complete).toBe(false);
  });
});
