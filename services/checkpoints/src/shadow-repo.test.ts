import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { join, relative } from "node:path";
import git from "isomorphic-git";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../test/temp-dirs.js";
import { initShadowGitdir } from "./shadow-repo.js";

const tempDir = useTempDirs();

/** Every folder and file under `root`, with each file's bytes. */
function listing(root: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        out[relative(root, path)] = null;
        walk(path);
      } else out[relative(root, path)] = fs.readFileSync(path, "utf8");
    }
  };
  walk(root);
  return out;
}

describe("initShadowGitdir", () => {
  it("makes the git directory isomorphic-git's init makes (folders, config, HEAD), which git reads", async () => {
    const ours = join(tempDir("aide-init-"), "gitdir");
    const theirs = join(tempDir("aide-init-"), "gitdir");
    fs.mkdirSync(join(ours, "objects", "pack"), { recursive: true });
    initShadowGitdir(ours);
    await git.init({ fs, dir: join(theirs, ".."), gitdir: theirs, defaultBranch: "checkpoints" });
    expect(listing(ours)).toEqual(listing(theirs));
    expect(execFileSync("git", ["--git-dir", ours, "symbolic-ref", "HEAD"]).toString().trim()).toBe("refs/heads/checkpoints");
    execFileSync("git", ["--git-dir", ours, "fsck", "--no-progress"], { stdio: ["ignore", "pipe", "ignore"] });
  });
});
