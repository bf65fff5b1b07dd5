import { readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { FileDiff } from "@aide/contracts";
import { compareTrees, type TreeChange, type TreeSide } from "./compare-trees.js";
import type { CheckpointContext } from "./checkpoint-context.js";
import { readCheckpoint } from "./list-checkpoints.js";
import { scanWorkingTree } from "./restore-checkpoint.js";
import type { ShadowRepo } from "./shadow-repo.js";

/** Replies must stay under the bus's 1 MiB; unified diffs share this budget, in path order. */
const diffBudgetBytes = 640 * 1024;
const perFileLimitBytes = 128 * 1024;
/** Files larger than this are named, not diffed (the diff library is quadratic in the worst case). */
const diffableBytes = 512 * 1024;

export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

async function contentOf(repo: ShadowRepo, side: "stored" | "working", change: TreeChange, which: "before" | "after"): Promise<Buffer | undefined> {
  const version = change[which];
  if (version === undefined) return undefined;
  if (side === "stored") return (await repo.objects.read(version.oid)).content;
  const path = join(repo.workspace, change.path);
  try {
    return version.mode === "120000" ? Buffer.from(await readlink(path, { encoding: "buffer" })) : await readFile(path);
  } catch {
    return Buffer.alloc(0);
  }
}

/** The changed files between a checkpoint and another (or the working tree), with unified diffs of text files. */
export async function diffCheckpoints(repo: ShadowRepo, context: CheckpointContext, from: string, to: string | undefined, signal: AbortSignal): Promise<{ files: FileDiff[] }> {
  const fromTree = (await readCheckpoint(repo, from)).tree;
  let toSide: TreeSide;
  if (to !== undefined) toSide = { kind: "stored", oid: (await readCheckpoint(repo, to)).tree };
  else toSide = { kind: "scanned", node: await repo.lock.run(signal, () => scanWorkingTree(repo, context, signal)) };
  const changes = await compareTrees(repo.objects, { kind: "stored", oid: fromTree }, toSide);
  let budget = diffBudgetBytes;
  const files: FileDiff[] = [];
  for (const change of changes) {
    const status = change.status;
    const before = await contentOf(repo, "stored", change, "before");
    const after = await contentOf(repo, to === undefined ? "working" : "stored", change, "after");
    const binary = (before !== undefined && isBinary(before)) || (after !== undefined && isBinary(after));
    if (binary) { files.push({ path: change.path, status, binary: true }); continue; }
    if ((before?.length ?? 0) > diffableBytes || (after?.length ?? 0) > diffableBytes || budget <= 0) {
      files.push({ path: change.path, status, binary: false, truncated: true });
      continue;
    }
    let patch = createTwoFilesPatch(
      before === undefined ? "/dev/null" : `a/${change.path}`,
      after === undefined ? "/dev/null" : `b/${change.path}`,
      before?.toString("utf8") ?? "",
      after?.toString("utf8") ?? "",
    );
    let truncated = false;
    const limit = Math.min(perFileLimitBytes, budget);
    if (Buffer.byteLength(patch) > limit) { patch = patch.slice(0, limit); truncated = true; }
    budget -= Buffer.byteLength(patch);
    files.push({ path: change.path, status, binary: false, diff: patch, ...(truncated ? { truncated } : {}) });
  }
  return { files };
}
