import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeTree, hashObject } from "./git-objects.js";
import { ObjectStore } from "./object-store.js";
import { maxDeltaDepth, PackWriter } from "./pack-writer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function bareRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "aide-pack-"));
  dirs.push(dir);
  execFileSync("git", ["init", "-q", "--bare", dir]);
  return dir;
}

describe("PackWriter", () => {
  it("hands the object store each pack's index as written, so a commit does not read it back from disk; a missing pack folder is made again", async () => {
    const gitdir = bareRepo();
    const packDir = join(gitdir, "objects", "pack");
    // Removed after the repository was made: the small pack's synchronous write makes it again.
    rmSync(packDir, { recursive: true });
    const writer = new PackWriter(packDir, 1);
    const oid = await writer.write("blob", Buffer.from("checkpointed\n"));
    const [name] = await writer.finish();
    const index = writer.indexOf(name!);
    expect(index).toEqual(readFileSync(join(packDir, `${name}.idx`)));
    expect(execFileSync("git", ["verify-pack", "-v", join(packDir, `${name}.idx`)]).toString()).toContain("ok");
    // With the index given, the store needs no index file (deleted here) to find the object in the pack.
    rmSync(join(packDir, `${name}.idx`));
    const store = new ObjectStore(gitdir);
    expect(store.packNames()).toEqual([]);
    store.addPack(name!, index);
    expect(store.has(oid)).toBe(true);
    expect((await store.read(oid)).content.toString()).toBe("checkpointed\n");
  });

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
    const b = execFileSync("git", ["--git-dir", gitdir, "hash-object", "-w", "--stdin"], { input: base + "more\n" })
      .toString()
      .trim();
    execFileSync("git", ["--git-dir", gitdir, "pack-objects", "-q", join(gitdir, "objects", "pack", "pack")], { input: `${a}\n${b}\n` });
    execFileSync("git", ["--git-dir", gitdir, "prune-packed"]);
    expect(readdirSync(join(gitdir, "objects", "pack")).some((f) => f.endsWith(".idx"))).toBe(true);
    const store = new ObjectStore(gitdir);
    expect((await store.read(b)).content.toString()).toBe(base + "more\n");
    expect((await store.read(a)).content.toString()).toBe(base);
  });

  it("writes offset deltas against a named base that git verifies and ObjectStore rebuilds byte-exact, chains bounded", async () => {
    const gitdir = bareRepo();
    const packDir = join(gitdir, "objects", "pack");
    const writer = new PackWriter(packDir, 6);
    const versions: Buffer[] = [Buffer.from(Array.from({ length: 3000 }, (_, i) => `line ${i} ${(i * 31) % 97}\n`).join(""))];
    for (let i = 1; i < 25; i++) versions.push(Buffer.concat([versions[i - 1], Buffer.from(`// edit ${i}\n`)]));
    const stored: string[] = [];
    const oids: string[] = [];
    // Newest first, each older version offered against the one before it, as the repack does.
    for (let i = versions.length - 1; i >= 0; i--) {
      const base = stored.length === 0 ? undefined : { oid: oids[oids.length - 1], content: versions[i + 1] };
      stored.push(await writer.add("blob", versions[i], undefined, base));
      oids.push(hashObject("blob", versions[i]));
    }
    const unrelated = randomBytes(5000);
    expect(await writer.add("blob", unrelated, undefined, { oid: oids[0], content: versions[versions.length - 1] })).toBe("whole");
    // A base not in this writer's pack is not used.
    expect(await writer.add("blob", Buffer.concat([versions[0], Buffer.from("x")]), undefined, { oid: "1".repeat(40), content: versions[0] })).toBe("whole");
    const [name] = await writer.finish();
    expect(stored[0]).toBe("whole");
    expect(stored.filter((s) => s === "delta").length).toBe(versions.length - 1 - Math.floor((versions.length - 1) / (maxDeltaDepth + 1)));
    const verify = execFileSync("git", ["verify-pack", "-v", join(packDir, `${name}.idx`)]).toString();
    expect(verify).toContain(": ok");
    const chains = [...verify.matchAll(/^chain length = (\d+): (\d+) object/gm)].map((m) => Number(m[1]));
    expect(Math.max(...chains)).toBe(maxDeltaDepth);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
    const store = new ObjectStore(gitdir);
    for (let i = 0; i < versions.length; i++) {
      const oid = hashObject("blob", versions[i]);
      expect(execFileSync("git", ["--git-dir", gitdir, "cat-file", "blob", oid]).equals(versions[i])).toBe(true);
      expect((await store.read(oid)).content.equals(versions[i])).toBe(true);
    }
  });
});
