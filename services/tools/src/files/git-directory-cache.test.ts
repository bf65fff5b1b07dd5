import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitDirectoryCache } from "./git-directory-cache.js";

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function workspace(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "aide-git-cache-")));
  roots.push(root);
  execFileSync("git", ["init", "-q", root]);
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  writeFileSync(join(root, "src", "a.ts"), "export {};\n");
  return root;
}

/**
 * Returns once every folder's last change is out of the cache's racy window (the scan of a
 * workspace at rest): waits on the clock for that condition, not for a fixed time.
 */
async function settle(root: string): Promise<void> {
  let newest = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) if (entry.isDirectory()) walk(join(path, entry.name));
    const stats = statSync(path);
    newest = Math.max(newest, stats.mtimeMs, stats.ctimeMs);
  };
  walk(root);
  while (Date.now() < newest + 100) await new Promise((resolve) => setTimeout(resolve, 20));
}

const relatives = (scan: { directories: Array<{ relative: string }> }) => scan.directories.map((found) => found.relative).sort();

describe("git-directory cache", () => {
  it("reuses the scan of a workspace at rest", async () => {
    const root = workspace();
    await settle(root);
    const cache = createGitDirectoryCache();
    const first = await cache.current(root);
    expect((await cache.current(root)).generation).toBe(first.generation);
    expect(relatives(first)).toEqual([".git"]);
  });

  it("sees a repository made deep in the tree after the scan, as a fresh scan would", async () => {
    const root = workspace();
    await settle(root);
    const cache = createGitDirectoryCache();
    await cache.current(root);
    execFileSync("git", ["init", "-q", join(root, "src", "deep")]);
    expect(relatives(await cache.current(root))).toEqual([".git", "src/deep/.git"]);
  });

  it("sees a repository moved to another folder, and a pointer file rewritten", async () => {
    const root = workspace();
    execFileSync("git", ["init", "-q", "--separate-git-dir", join(root, "store-one"), join(root, "app")]);
    mkdirSync(join(root, "store-two"));
    execFileSync("git", ["init", "-q", "--bare", join(root, "store-two", "repo")]);
    await settle(root);
    const cache = createGitDirectoryCache();
    expect(relatives(await cache.current(root))).toEqual([".git", "store-one", "store-two/repo"]);
    renameSync(join(root, "store-two"), join(root, "src", "deep", "moved"));
    expect(relatives(await cache.current(root))).toEqual([".git", "src/deep/moved/repo", "store-one"]);
    await settle(root);
    await cache.current(root);
    const pointer = join(root, "app", ".git");
    writeFileSync(pointer, `gitdir: ${join(root, "src", "deep", "moved", "repo")}\n`);
    const scan = await cache.current(root);
    expect(scan.directories.find((found) => found.pointerFile === pointer)?.relative).toBe("src/deep/moved/repo");
  });

  it("does not reuse a scan that read a folder changed just before it (the racy window)", async () => {
    const root = workspace();
    const cache = createGitDirectoryCache();
    const first = await cache.current(root);
    expect((await cache.current(root)).generation).not.toBe(first.generation);
  });

  it("forgets a workspace on invalidate", async () => {
    const root = workspace();
    await settle(root);
    const cache = createGitDirectoryCache();
    const first = await cache.current(root);
    cache.invalidate(root);
    expect((await cache.current(root)).generation).not.toBe(first.generation);
  });
});
