/** The repack of prune: every reachable object into one pack, versions of one path stored as deltas. */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { CheckpointContext } from "./checkpoint-context.js";
import { latestRef, parseCommit, runsPrefix } from "./checkpoint-metadata.js";
import { decodeTree, type GitObjectType } from "./git/git-objects.js";
import { PackWriter } from "./git/pack-writer.js";
import { loadCache, type ShadowRepo } from "./shadow-repo.js";
import type { DirNode } from "./scan/stat-cache-tree.js";

/**
 * The reachable objects grouped by where they live: each file path and each folder path is one
 * group, its versions newest first (commits are walked newest first, each tree top-down), and
 * the commits form a group of their own. An object reached at several paths joins the first.
 */
export interface ReachableGroups {
  groups: Map<string, string[]>;
  count: number;
}

/** Every object reachable from the run refs, latest, and the stat cache (whose ids must stay valid). */
export async function reachableGroups(repo: ShadowRepo): Promise<ReachableGroups> {
  const seen = new Set<string>();
  const groups = new Map<string, string[]>();
  const place = (group: string, oid: string) => {
    seen.add(oid);
    const list = groups.get(group);
    if (list === undefined) groups.set(group, [oid]);
    else list.push(oid);
  };
  const roots = (await repo.refs.list(runsPrefix)).map((r) => r.oid);
  const latest = await repo.refs.read(latestRef);
  if (latest) roots.push(latest);
  const commits: Array<{ oid: string; tree: string; timestamp: number }> = [];
  while (roots.length > 0) {
    const oid = roots.pop() as string;
    if (seen.has(oid) || !repo.objects.has(oid)) continue;
    place("commit", oid);
    const commit = parseCommit((await repo.objects.read(oid)).content);
    commits.push({ oid, tree: commit.tree, timestamp: commit.timestamp });
    roots.push(...commit.parents);
  }
  commits.sort((a, b) => b.timestamp - a.timestamp);
  const walkTree = async (oid: string, path: string): Promise<void> => {
    if (seen.has(oid)) return;
    place(`d:${path}`, oid);
    for (const entry of decodeTree((await repo.objects.read(oid)).content)) {
      const child = path === "" ? entry.name : `${path}/${entry.name}`;
      if (entry.mode === "40000") await walkTree(entry.oid, child);
      else if (!seen.has(entry.oid)) place(`f:${child}`, entry.oid);
    }
  };
  for (const commit of commits) await walkTree(commit.tree, "");
  // The stat cache names what the next commit reuses without checking: those objects stay too.
  const collect = (dir: DirNode, path: string) => {
    if (dir.oid && !seen.has(dir.oid) && repo.objects.has(dir.oid)) place(`d:${path}`, dir.oid);
    for (const [name, node] of dir.children) {
      const child = path === "" ? name : `${path}/${name}`;
      if (node.kind === "dir") collect(node, child);
      else if (node.kind === "file" && !seen.has(node.oid) && repo.objects.has(node.oid)) place(`f:${child}`, node.oid);
    }
  };
  if (repo.cache) collect(repo.cache.root, "");
  return { groups, count: seen.size };
}

/**
 * Writes every reachable object into one new pack (at the repack compression level), then
 * removes the old packs, loose objects and temp files. Within a path's group each version is
 * offered as a delta against the one before it (newer), so the newest is whole and an older
 * one costs about what changed: what `git gc` saves with its delta search, found here from the
 * paths. The new pack is in place before anything is deleted, so a crash at any point leaves a
 * readable repository. Returns how many objects went in as deltas.
 */
export async function repack(repo: ShadowRepo, context: CheckpointContext, signal: AbortSignal): Promise<{ objects: number; deltas: number }> {
  repo.objects.reload();
  await loadCache(repo);
  const { groups, count } = await reachableGroups(repo);
  const writer = new PackWriter(repo.objects.packDirectory, context.config.repack_level);
  let deltas = 0;
  for (const [group, oids] of groups) {
    let previous: { oid: string; content: Uint8Array } | undefined;
    for (const oid of oids) {
      if (signal.aborted) throw signal.reason;
      const object = await repo.objects.read(oid);
      if (object.type === "tag") continue;
      const stored = await writer.add(object.type as GitObjectType, object.content, oid, group === "commit" ? undefined : previous);
      if (stored === "delta") deltas++;
      previous = { oid, content: object.content };
    }
  }
  const kept = new Set(await writer.finish());
  for (const file of await readdir(repo.objects.packDirectory)) {
    const base = file.replace(/\.(pack|idx|keep|rev)$/, "");
    if (!kept.has(base)) await rm(join(repo.objects.packDirectory, file), { force: true });
  }
  await rm(join(repo.gitdir, "tmp"), { recursive: true, force: true });
  const objectsDir = join(repo.gitdir, "objects");
  for (const entry of await readdir(objectsDir)) {
    if (/^[0-9a-f]{2}$/.test(entry)) await rm(join(objectsDir, entry), { recursive: true, force: true });
  }
  repo.objects.reload();
  return { objects: count, deltas };
}
