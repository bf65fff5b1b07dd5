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
    const written = [...after].filter(([path, stamp]) => stamps.get(path) !== stamp).map(([path]) => path).sort();
    expect(written).toEqual([...changed].sort());
    expect(after.size).toBe(300);
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
