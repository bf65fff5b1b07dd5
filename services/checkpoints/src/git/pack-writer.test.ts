import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeTree, hashObject } from "./git-objects.js";
import { ObjectStore } from "./object-store.js";
import { PackWriter } from "./pack-writer.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function bareRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "aide-pack-"));
  dirs.push(dir);
  execFileSync("git", ["init", "-q", "--bare", dir]);
  return dir;
}

describe("PackWriter", () => {
  it("writes packs that the git CLI verifies and reads, and that ObjectStore reads back", async () => {
    const gitdir = bareRepo();
    const packDir = join(gitdir, "objects", "pack");
    const writer = new PackWriter(packDir, 1, () => false, 4096);
    const big = randomBytes(20_000);
    const blobs = [Buffer.from("hello\n"), Buffer.alloc(0), big, Buffer.from([0, 255, 1, 254])];
    const oids: string[] = [];
    for (const blob of blobs) oids.push(await writer.write("blob", blob));
    expect(await writer.write("blob", blobs[0])).toBe(oids[0]);
    const tree = encodeTree([{ name: "a.txt", mode: "100644", oid: oids[0] }]);
    const treeOid = await writer.write("tree", tree);
    const names = await writer.finish();
    expect(names.length).toBeGreaterThan(1); // the small flush size split the objects
    for (const name of names) {
      const out = execFileSync("git", ["verify-pack", "-v", join(packDir, `${name}.idx`)]).toString();
      expect(out).toContain("ok");
    }
    expect(oids[0]).toBe(execFileSync("git", ["hash-object", "--stdin"], { input: "hello\n" }).toString().trim());
    expect(execFileSync("git", ["--git-dir", gitdir, "cat-file", "-p", oids[0]]).toString()).toBe("hello\n");
    expect(execFileSync("git", ["--git-dir", gitdir, "cat-file", "-t", treeOid]).toString().trim()).toBe("tree");
    expect(execFileSync("git", ["--git-dir", gitdir, "cat-file", "blob", oids[2]]).equals(big)).toBe(true);

    const store = new ObjectStore(gitdir);
    for (let i = 0; i < blobs.length; i++) {
      const object = await store.read(oids[i]);
      expect(object.type).toBe("blob");
      expect(object.content.equals(blobs[i])).toBe(true);
      expect(hashObject("blob", object.content)).toBe(oids[i]);
    }
    expect(store.has(treeOid)).toBe(true);
    expect(store.has("0".repeat(40))).toBe(false);
  });

  it("reads objects git itself packed with deltas, through isomorphic-git", async () => {
    const gitdir = bareRepo();
    const base = "line\n".repeat(2000);
    const a = execFileSync("git", ["--git-dir", gitdir, "hash-object", "-w", "--stdin"], { input: base }).toString().trim();
    const b = execFileSync("git", ["--git-dir", gitdir, "hash-object", "-w", "--stdin"], { input: base + "more\n" }).toString().trim();
    execFileSync("git", ["--git-dir", gitdir, "pack-objects", "-q", join(gitdir, "objects", "pack", "pack")], { input: `${a}\n${b}\n` });
    execFileSync("git", ["--git-dir", gitdir, "prune-packed"]);
    expect(readdirSync(join(gitdir, "objects", "pack")).some((f) => f.endsWith(".idx"))).toBe(true);
    const store = new ObjectStore(gitdir);
    expect((await store.read(b)).content.toString()).toBe(base + "more\n");
    expect((await store.read(a)).content.toString()).toBe(base);
  });
});
