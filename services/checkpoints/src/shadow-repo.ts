/** The shadow repository of one workspace: its folder, objects, refs, stat cache and lock. */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { aideError } from "@aide/contracts";
import { join } from "node:path";
import { ObjectStore } from "./git/object-store.js";
import { emptyTreeOid } from "./git/git-objects.js";
import { RefStore } from "./git/ref-store.js";
import { loadStatCache, saveStatCache } from "./scan/stat-cache.js";
import { emptyCache, type DirNode, type StatCache } from "./scan/stat-cache-tree.js";
import { WorkspaceLock } from "./workspace/workspace-lock.js";
import type { CrossHostLock } from "./workspace/kv-workspace-lock.js";

/** Everything the service keeps for one workspace; one instance per real path. */
export interface ShadowRepo {
  workspace: string;
  gitdir: string;
  refs: RefStore;
  objects: ObjectStore;
  lock: WorkspaceLock;
  /** Loaded on first use; replaced (never mutated) after each scan whose objects were stored. */
  cache?: StatCache;
  /** The pending cache write, chained so writes never overlap. */
  cacheWrite?: Promise<void>;
  cacheTimer?: NodeJS.Timeout;
  /** The cache object the file on disk holds. */
  savedCache?: StatCache;
  cacheErrorHandler?: (error: unknown) => void;
  /** The folders exist and were checked (once per process). */
  ready?: boolean;
  identity?: string;
  /** The latest checkpoint (null: none yet; undefined: not read yet). */
  latest?: { id: string; tree: string; createdMs: number } | null;
}

export function shadowGitdir(workspace: string): string {
  const hash = createHash("sha256").update(workspace).digest("hex").slice(0, 16);
  return join(workspace, ".aide", "checkpoints", hash);
}

export function openShadowRepo(workspace: string, crossHostLock?: CrossHostLock, onLockReleaseError?: (error: unknown) => void): ShadowRepo {
  const gitdir = shadowGitdir(workspace);
  const lock = new WorkspaceLock(join(gitdir, "aide.lock"), {
    prepare: () => ensureShadowFolders(workspace, gitdir),
    ...(crossHostLock ? { crossHost: { lock: crossHostLock, workspace } } : {}),
    ...(onLockReleaseError ? { onReleaseError: onLockReleaseError } : {}),
  });
  return { workspace, gitdir, refs: new RefStore(gitdir), objects: new ObjectStore(gitdir), lock };
}

/**
 * Creates `.aide/checkpoints/<hash>/objects/pack` one folder at a time, refusing anything on the
 * way that is not a real folder: a workspace could plant `.aide` as a symlink to send our writes
 * elsewhere. Safe to run concurrently.
 */
export async function ensureShadowFolders(workspace: string, gitdir: string): Promise<void> {
  const relative = gitdir.slice(workspace.length + 1).split("/");
  let current = workspace;
  for (const segment of [...relative, "objects", "pack"]) {
    current = join(current, segment);
    // Synchronous (a few microseconds each, every operation checks the way again, a new
    // workspace makes five folders): each await here cost a thread-pool hop and an event-loop
    // turn, which at 500 sessions checkpointing at once was 100-200 ms each.
    const stats = fs.lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) {
      try {
        fs.mkdirSync(current);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    } else if (!stats.isDirectory()) throw aideError("CHECKPOINT_FAILED", { detail: `${current} is not a folder (a symlink or file is in the way)` });
  }
}

const cachePath = (repo: ShadowRepo) => join(repo.gitdir, "aide-stat-cache");

/**
 * Creates the shadow repository on first use: `.aide/.gitignore` holding `*` (so the user's git
 * never lists it) and the git directory (initShadowGitdir: what isomorphic-git's init made).
 */
export async function ensureShadowRepo(repo: ShadowRepo): Promise<void> {
  // HEAD is written once, at init: its inode and change time identify this repository (a
  // folder's inode alone is reused at once when `.aide` is deleted and recreated).
  const identity = repositoryIdentity(repo);
  if (repo.ready && identity !== undefined && identity === repo.identity) return;
  if (repo.ready) forgetState(repo);
  await ensureShadowFolders(repo.workspace, repo.gitdir);
  const ignore = join(repo.workspace, ".aide", ".gitignore");
  // O_EXCL: never follows a planted symlink, never overwrites the user's own file.
  try {
    fs.writeFileSync(ignore, "*\n", { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (!fs.existsSync(join(repo.gitdir, "HEAD"))) {
    initShadowGitdir(repo.gitdir);
    // Made just now: there is no stat cache to read (a file left from before would only be
    // validated against a store that holds nothing, and dropped).
    repo.cache ??= emptyCache();
  }
  repo.identity = repositoryIdentity(repo);
  repo.ready = true;
}

/** What isomorphic-git's init writes as `config` (kept byte for byte: git and isomorphic-git read the repository). */
const shadowConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = false\n\tbare = false\n\tlogallrefupdates = true\n\tsymlinks = false\n\tignorecase = true\n";

/**
 * The git directory isomorphic-git's init made (the same folders, `config`, and HEAD naming
 * `refs/heads/checkpoints`), with synchronous calls under the workspace lock: a dozen short
 * syscalls on a workspace's first checkpoint, where the init's promises cost as many thread-pool
 * hops and event-loop turns. HEAD goes last: its presence is what says the repository was made
 * (a crash before it makes the next operation write the same files again).
 */
export function initShadowGitdir(gitdir: string): void {
  for (const folder of ["hooks", "info", "objects/info", "objects/pack", "refs/heads", "refs/tags"]) fs.mkdirSync(join(gitdir, folder), { recursive: true });
  fs.writeFileSync(join(gitdir, "config"), shadowConfig);
  fs.writeFileSync(join(gitdir, "HEAD"), "ref: refs/heads/checkpoints\n");
}

/** One synchronous lstat (every operation starts with it; the thread pool only added an event-loop turn). */
function repositoryIdentity(repo: ShadowRepo): string | undefined {
  try {
    const stats = fs.lstatSync(join(repo.gitdir, "HEAD"));
    return `${stats.ino}:${stats.ctimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The shadow repository was deleted or replaced under us (someone removed `.aide`): nothing
 * remembered about it may be trusted, above all not cached blob ids whose objects are gone.
 */
function forgetState(repo: ShadowRepo): void {
  if (repo.cacheTimer !== undefined) clearTimeout(repo.cacheTimer);
  repo.cacheTimer = undefined;
  repo.cache = undefined;
  repo.savedCache = undefined;
  repo.latest = undefined;
  repo.objects.reload();
  repo.ready = false;
}

export async function loadCache(repo: ShadowRepo): Promise<StatCache> {
  if (repo.cache === undefined) {
    const loaded = await loadStatCache(cachePath(repo));
    // A cache naming an object the repository does not hold (packs deleted by hand, a copy of
    // another repository's file) would let a commit reference it: start from nothing instead.
    repo.cache = cacheObjectsStored(repo, loaded.root) ? loaded : emptyCache();
    repo.savedCache = repo.cache === loaded ? loaded : undefined;
  }
  return repo.cache;
}

/** The cache file is rewritten at most this often; a crash loses at most this much hashing. */
const cacheSaveDelayMs = 1000;
/** While the workspace is busy the write is tried again this much later, for at most ten seconds. */
const cacheSaveRetryMs = 100;
const maxCacheSaveDeferrals = 100;

/** Every object the cache names (folder trees, file blobs) is in the repository. */
function cacheObjectsStored(repo: ShadowRepo, dir: DirNode): boolean {
  if (dir.oid !== undefined && dir.oid !== emptyTreeOid && !repo.objects.has(dir.oid)) return false;
  for (const node of dir.children.values()) {
    if (node.kind === "file" && !repo.objects.has(node.oid)) return false;
    if (node.kind === "dir" && !cacheObjectsStored(repo, node)) return false;
  }
  return true;
}

/**
 * Replaces the cache in memory and schedules the file write (atomic, temp + rename) for a quiet
 * moment rather than on the reply path: serializing ten thousand entries takes milliseconds of
 * the one thread, so while a commit or restore of the workspace runs or waits, the write waits
 * too (ten seconds at most). A crash before it only costs a rehash: every id the older file
 * holds is still stored, because prune flushes the cache before deleting anything.
 */
export function storeCache(repo: ShadowRepo, cache: StatCache, onError: (error: unknown) => void): void {
  repo.cache = cache;
  repo.cacheErrorHandler = onError;
  if (repo.cacheTimer !== undefined) return;
  const schedule = (deferrals: number, delay: number) => {
    repo.cacheTimer = setTimeout(() => {
      if (repo.lock.busy && deferrals < maxCacheSaveDeferrals) return schedule(deferrals + 1, cacheSaveRetryMs);
      repo.cacheTimer = undefined;
      void writeCacheNow(repo);
    }, delay);
  };
  schedule(0, cacheSaveDelayMs);
}

function writeCacheNow(repo: ShadowRepo): Promise<void> {
  const previous = repo.cacheWrite ?? Promise.resolve();
  repo.cacheWrite = previous.then(async () => {
    const cache = repo.cache;
    if (cache === undefined || cache === repo.savedCache) return;
    try {
      await saveStatCache(cachePath(repo), cache);
      repo.savedCache = cache;
    } catch (error) {
      repo.cacheErrorHandler?.(error);
    }
  });
  return repo.cacheWrite;
}

/** Writes a pending cache now (before prune deletes objects, and on shutdown). */
export async function flushCache(repo: ShadowRepo): Promise<void> {
  if (repo.cacheTimer !== undefined) {
    clearTimeout(repo.cacheTimer);
    repo.cacheTimer = undefined;
  }
  await writeCacheNow(repo);
}
