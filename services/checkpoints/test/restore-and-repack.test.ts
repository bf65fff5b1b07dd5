import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, snapshotTree, useCheckpointsService } from "./helpers.js";

/** Source-like text that differs per file, so each file is its own object. */
const text = (seed: number, lines: number) => Array.from({ length: lines }, (_, i) => `export const value${i} = ${(seed * 7919 + i * 104729) % 100003}; // ${seed}\n`).join("");

/** Every file's inode and change time: a write of any kind (in place or a new file) changes one of them. */
function fileStamps(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      if (prefix === "" && name === ".aide") continue;
      const rel = prefix === "" ? name : `${prefix}/${name}`;
      const stats = lstatSync(join(dir, name), { bigint: true });
      if (stats.isDirectory()) walk(join(dir, name), rel);
      else out.set(rel, `${stats.ino}:${stats.ctimeNs}`);
    }
  };
  walk(root, "");
  return out;
}

describe("restore writes only what differs; a repacked store restores every checkpoint (real service over the bus)", () => {
  const cp = useCheckpointsService("aide-cp-repack-");

  it("a restore of a tree that differs in N files writes exactly those N files and no other", async () => {
    const ws = join(cp.root, "exact");
    for (let f = 0; f < 10; f++) {
      mkdirSync(join(ws, `mod${f}`), { recursive: true });
      for (let i = 0; i < 30; i++) writeFileSync(join(ws, `mod${f}`, `file${i}.ts`), text(f * 100 + i, 20));
    }
    const before = (await call(cp.client, "agent.checkpoints.commit", { workspace: ws, session: "s", run: "r1", label: "before" })).checkpoint.id;
    const changed = ["mod0/file3.ts", "mod2/file0.ts", "mod2/file29.ts", "mod5/file7.ts", "mod9/file11.ts", "mod9/file12.ts", "mod7/file20.ts"];
    for (const path of changed) appendFileSync(join(ws, path), "// edited\n");
    await call(cp.client, "agent.checkpoints.commit", { workspace: ws, session: "s", run: "r1", label: "after" });
    const stamps = fileStamps(ws);
    const restored = await call(cp.client, "agent.checkpoints.restore", { workspace: ws, session: "s", checkpoint: before, mode: "files" });
    expect([...restored.plan.modified].sort()).toEqual([...changed].sort());
    const after = fileStamps(ws);
    const written = [...after]
      .filter(([path, stamp]) => stamps.get(path) !== stamp)
      .map(([path]) => path)
      .sort();
    expect(written).toEqual([...changed].sort());
    expect(after.size).toBe(300);
  });

  it("after a restore that follows a commit, the restored checkpoint and the next commits hold the trees git computes for the working tree", async () => {
    const ws = join(cp.root, "tree-ids");
    for (let f = 0; f < 6; f++) {
      mkdirSync(join(ws, `pkg${f % 2}`, `mod${f}`), { recursive: true });
      for (let i = 0; i < 12; i++) writeFileSync(join(ws, `pkg${f % 2}`, `mod${f}`, `file${i}.ts`), text(f * 50 + i, 10));
    }
    writeFileSync(join(ws, "run.sh"), "#!/bin/sh\necho run\n");
    chmodSync(join(ws, "run.sh"), 0o755);
    const commit = async (label: string, changed?: string[]) =>
      (await call(cp.client, "agent.checkpoints.commit", { workspace: ws, session: "s", run: "r1", label, ...(changed ? { changed_paths: changed } : {}) })).checkpoint.id as string;
    const shadow = () => join(ws, ".aide", "checkpoints", readdirSync(join(ws, ".aide", "checkpoints")).filter((name) => name !== ".gitignore")[0]);
    const treeOf = (commitId: string) =>
      execFileSync("git", ["--git-dir", shadow(), "rev-parse", `${commitId}^{tree}`])
        .toString()
        .trim();
    /** The tree id git computes for the working tree (its own index, outside the workspace). */
    const gitTree = () => {
      const index = join(cp.root, `tree-ids-index-${Math.random().toString(36).slice(2)}`);
      const env = { ...process.env, GIT_DIR: shadow(), GIT_WORK_TREE: ws, GIT_INDEX_FILE: index };
      execFileSync("git", ["-c", "core.bare=false", "-c", "core.fileMode=true", "add", "-A", "--", ".", ":!.aide"], { env });
      const id = execFileSync("git", ["-c", "core.bare=false", "write-tree"], { env }).toString().trim();
      rmSync(index, { force: true });
      return id;
    };
    const before = await commit("before");
    expect(treeOf(before)).toBe(gitTree());
    const edited = ["pkg0/mod0/file1.ts", "pkg0/mod2/file5.ts", "pkg1/mod3/file0.ts", "pkg1/mod5/file11.ts"];
    for (const path of edited) appendFileSync(join(ws, path), "// edited\n");
    await commit("after", edited);
    const restored = await call(cp.client, "agent.checkpoints.restore", { workspace: ws, session: "s", checkpoint: before, mode: "files" });
    expect([...restored.plan.modified].sort()).toEqual([...edited].sort());
    // The restore recorded no new checkpoint (the working tree is the target's), and what it
    // remembers of the folders is right: a commit of the unchanged tree, and one after an edit in a
    // restored folder and one in a folder beside it, hold what git computes.
    const again = await commit("unchanged after the restore");
    expect(treeOf(again)).toBe(treeOf(before));
    expect(treeOf(again)).toBe(gitTree());
    appendFileSync(join(ws, "pkg0/mod2/file6.ts"), "// after\n");
    appendFileSync(join(ws, "pkg1/mod1/file2.ts"), "// after\n");
    const later = await commit("edited after the restore", ["pkg0/mod2/file6.ts", "pkg1/mod1/file2.ts"]);
    expect(treeOf(later)).toBe(gitTree());
    const walked = await commit("walked");
    expect(treeOf(walked)).toBe(treeOf(later));
    execFileSync("git", ["--git-dir", shadow(), "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
  });

  it("prune packs versions as deltas that git verifies, and every checkpoint still restores byte-exact (cold reads after a restart)", async () => {
    const ws = join(cp.root, "packed");
    mkdirSync(join(ws, "src", "deep"), { recursive: true });
    for (let i = 0; i < 40; i++) writeFileSync(join(ws, i % 2 ? "src" : join("src", "deep"), `f${i}.ts`), text(i, 60));
    writeFileSync(join(ws, "run.sh"), "#!/bin/sh\necho hi\n");
    chmodSync(join(ws, "run.sh"), 0o755);
    const checkpoints: Array<{ id: string; snapshot: Record<string, string> }> = [];
    for (let step = 0; step < 14; step++) {
      // Appends and edits in place (delta material), plus a deletion, a new file and a mode change along the way.
      for (let k = 0; k < 6; k++) appendFileSync(join(ws, (step + k) % 2 ? "src" : join("src", "deep"), `f${(step * 5 + k * 2 + ((step + k) % 2)) % 40}.ts`), `// step ${step} edit ${k}\n`);
      if (step === 4) rmSync(join(ws, "src", "f1.ts"));
      if (step === 6) writeFileSync(join(ws, "src", "new.ts"), text(999, 30));
      if (step === 9) chmodSync(join(ws, "run.sh"), 0o644);
      const id = (await call(cp.client, "agent.checkpoints.commit", { workspace: ws, session: "s", run: `r${step}`, label: `step ${step}` })).checkpoint.id;
      checkpoints.push({ id, snapshot: snapshotTree(ws) });
    }
    const pruned = await call(cp.client, "agent.checkpoints.prune", { workspace: ws, keep_tasks: 1000 });
    expect(pruned.after.checkpoints).toBe(14);
    expect(pruned.after.packs).toBe(1);
    expect(pruned.after.bytes).toBeLessThan(pruned.before.bytes);
    const deltas = Number(/"deltas":(\d+)[^\n]*checkpoints pruned/.exec(cp.service.logs())?.[1] ?? 0);
    expect(deltas).toBeGreaterThan(40);

    const gitdir = join(ws, ".aide", "checkpoints", readdirSync(join(ws, ".aide", "checkpoints"))[0]);
    execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { stdio: "pipe" });
    const pack = readdirSync(join(gitdir, "objects", "pack")).find((f) => f.endsWith(".idx"))!;
    const verify = execFileSync("git", ["verify-pack", "-v", join(gitdir, "objects", "pack", pack)]).toString();
    expect(verify).toMatch(/^chain length = 1: \d+ object/m);

    // A fresh process: nothing cached, every delta chain rebuilt from the pack.
    await cp.restart();
    for (const checkpoint of [...checkpoints].reverse().concat(checkpoints)) {
      await call(cp.client, "agent.checkpoints.restore", { workspace: ws, session: "s", checkpoint: checkpoint.id, mode: "files" });
      expect(snapshotTree(ws)).toEqual(checkpoint.snapshot);
    }
  });
});
