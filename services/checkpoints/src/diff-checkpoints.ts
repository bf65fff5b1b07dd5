/** The diff operation: changed files between checkpoints or against the working tree. */
import { readFile, readlink } from "node:fs/promises";
import { displayPath, fsPath } from "./git/raw-names.js";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { FileDiff } from "@aide/contracts";
import { compareTrees, type TreeChange, type TreeSide } from "./scan/compare-trees.js";
import type { CheckpointContext } from "./checkpoint-context.js";
import { readCheckpoint } from "./list-checkpoints.js";
import { scanWorkingTree } from "./restore-checkpoint.js";
import type { ShadowRepo } from "./shadow-repo.js";

/**
 * A reply over the bus's max payload travels in chunks (runtime's chunked-transfer), so the bound
 * here is the size a client can use, not one bus message: the unified diffs share a budget, then
 * the JSON-encoded entries do (escaping can double text); the rest is counted in `omitted`.
 */
const diffBudgetBytes = 16 * 1024 * 1024;
const perFileLimitBytes = 4 * 1024 * 1024;
const replyBudgetBytes = 24 * 1024 * 1024;
/** Files larger than this are named, not diffed, when both sides exist (the diff is quadratic in the worst case). */
const diffableBytes = 512 * 1024;
/** An added or deleted file's diff is linear in its size: larger ones are diffed too. */
const diffableOneSidedBytes = perFileLimitBytes;

export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

async function contentOf(repo: ShadowRepo, side: "stored" | "working", change: TreeChange, which: "before" | "after"): Promise<Buffer | undefined> {
  const version = change[which];
  if (version === undefined) return undefined;
  if (side === "stored") return (await repo.objects.read(version.oid)).content;
  const path = join(repo.workspace, change.path);
  try {
    return version.mode === "120000" ? Buffer.from(await readlink(fsPath(path), { encoding: "buffer" })) : await readFile(fsPath(path));
  } catch {
    return Buffer.alloc(0);
  }
}

/** The changed files between a checkpoint and another (or the working tree), with unified diffs of text files. */
export async function diffCheckpoints(repo: ShadowRepo, context: CheckpointContext, from: string, to: string | undefined, signal: AbortSignal): Promise<{ files: FileDiff[]; omitted?: number }> {
  const fromTree = (await readCheckpoint(repo, from)).tree;
  let toSide: TreeSide;
  if (to !== undefined) toSide = { kind: "stored", oid: (await readCheckpoint(repo, to)).tree };
  else toSide = { kind: "scanned", node: (await repo.lock.run(signal, (bounded) => scanWorkingTree(repo, context, bounded))).root };
  const changes = await compareTrees(repo.objects, { kind: "stored", oid: fromTree }, toSide);
  let budget = diffBudgetBytes;
  let replyBytes = 64;
  const files: FileDiff[] = [];
  let omitted = 0;
  for (const change of changes) {
    if (replyBytes > replyBudgetBytes) {
      omitted++;
      continue;
    }
    const entry = await describeChange(repo, change, to === undefined, budget);
    budget -= entry.diff === undefined ? 0 : Buffer.byteLength(entry.diff);
    replyBytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (replyBytes > replyBudgetBytes) {
      omitted++;
      continue;
    }
    files.push({ ...entry, path: displayPath(entry.path) });
  }
  return omitted > 0 ? { files, omitted } : { files };
}

async function describeChange(repo: ShadowRepo, change: TreeChange, againstWorkingTree: boolean, budget: number): Promise<FileDiff> {
  const { path, status } = change;
  const before = await contentOf(repo, "stored", change, "before");
  const after = await contentOf(repo, againstWorkingTree ? "working" : "stored", change, "after");
  if ((before !== undefined && isBinary(before)) || (after !== undefined && isBinary(after))) return { path, status, binary: true };
  const largest = Math.max(before?.length ?? 0, after?.length ?? 0);
  const diffable = before === undefined || after === undefined ? diffableOneSidedBytes : diffableBytes;
  if (largest > diffable || budget <= 0) return { path, status, binary: false, truncated: true };
  let patch = createTwoFilesPatch(before === undefined ? "/dev/null" : `a/${path}`, after === undefined ? "/dev/null" : `b/${path}`, before?.toString("utf8") ?? "", after?.toString("utf8") ?? "");
  const limit = Math.min(perFileLimitBytes, budget);
  if (Buffer.byteLength(patch) <= limit) return { path, status, binary: false, diff: patch };
  patch = Buffer.from(patch)
    .subarray(0, limit)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return { path, status, binary: false, diff: patch, truncated: true };
}
