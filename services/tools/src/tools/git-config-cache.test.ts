import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitDirectoryCache } from "../files/git-directory-cache.js";
import { configurationKey, hasIncludes } from "./git-config-cache.js";

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function repository(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "aide-config-key-")));
  roots.push(root);
  execFileSync("git", ["init", "-q", root]);
  mkdirSync(join(root, "src"));
  return root;
}

const keyOf = async (root: string, cwd = root) => configurationKey(await createGitDirectoryCache().current(root), root, cwd);

describe("the configuration listing's key", () => {
  it("stays the same while nothing changes and changes when the config is rewritten (as git writes it: a new file renamed over)", async () => {
    const root = repository();
    const first = await keyOf(root);
    expect(first).toBeDefined();
    expect(await keyOf(root)).toBe(first);
    execFileSync("git", ["-C", root, "config", "filter.late.clean", "cat"]);
    expect(await keyOf(root)).not.toBe(first);
  });

  it("changes when a nested repository appears below the cwd", async () => {
    const root = repository();
    const first = await keyOf(root);
    execFileSync("git", ["init", "-q", join(root, "src", "inner")]);
    expect(await keyOf(root)).not.toBe(first);
  });

  it("is undefined where the listing may read what it cannot name", async () => {
    const root = repository();
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "aide-config-outside-")));
    roots.push(outside);
    execFileSync("git", ["init", "-q", "--bare", join(outside, "store")]);
    mkdirSync(join(root, "linked"));
    writeFileSync(join(root, "linked", ".git"), `gitdir: ${join(outside, "store")}\n`);
    expect(await keyOf(root)).toBeUndefined();
    rmSync(join(root, "linked"), { recursive: true });
    mkdirSync(join(root, "node_modules", "dep"), { recursive: true });
    expect(await keyOf(root, join(root, "node_modules", "dep"))).toBeUndefined();
    expect(await keyOf(root, join(root, ".git"))).toBeUndefined();
    expect(await keyOf(root, join(root, "src"))).toBeDefined();
  });

  it("a listing with an include is never kept", () => {
    expect(hasIncludes(["core.bare", "include.path", "filter.x.clean"])).toBe(true);
    expect(hasIncludes(["includeIf.gitdir:/x/.path"])).toBe(true);
    expect(hasIncludes(["core.bare", "filter.x.clean"])).toBe(false);
  });
});
