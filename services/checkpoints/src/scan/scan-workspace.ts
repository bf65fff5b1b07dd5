/** The full walk of a workspace into a tree of hashed files. */
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Dirent } from "node:fs";
import { aideError } from "@aide/contracts";
import { emptyTreeOid, encodeTree, hashObject, sortTreeEntries, type GitObjectType, type TreeEntry } from "../git/git-objects.js";
import { compileRules, matchCompiled, parseIgnoreFile, type CompiledRules, type IgnoreRule } from "./exclude-rules.js";
import { forEachFile } from "./stat-cache.js";
import type { DirNode, FileNode, FolderListing, TreeNode } from "./stat-cache-tree.js";
import { decodeName, fsPath } from "../git/raw-names.js";
import { minPrefetchPaths, type StatPrefetcher } from "./stat-prefetcher.js";
import type { EntryStats, StatThreadCounts } from "./stat-claims.js";
import { fileMode, fileStillCached, listingHolds, statUnchanged } from "./entry-checks.js";
import { SharedWalk } from "./shared-walk.js";

/** Where objects go: must keep what it accepted once `finish` (not part of this seam) succeeds. */
export interface ObjectSink {
  write(type: GitObjectType, content: Uint8Array, knownOid?: string): Promise<string>;
  /** Told the entries of every tree the scan encoded (written now or already stored), so they need never be decoded. */
  knowTree?(oid: string, entries: readonly TreeEntry[]): void;
}

export interface ScanOptions {
  /** The workspace's real path. */
  workspace: string;
  excludes: CompiledRules;
  respectGitignore: boolean;
  maxFileBytes: number;
  sink: ObjectSink;
  signal: AbortSignal;
  /** Wall clock in ms, for racy-entry detection. */
  now: () => number;
  /** Receives every file hashed in this scan, so an abandoned scan's work can be kept. */
  progress?: Array<[string, FileNode]>;
  /** A second thread for the lstats of a full walk (stat-prefetcher.ts); absent: all on this thread. */
  prefetch?: StatPrefetcher;
}

export interface ScanResult {
  root: DirNode;
  /** Captured files added, modified or removed relative to the previous state. */
  changes: number;
  /** Folders read with readdir (the others' listings still held). */
  listedFolders: number;
  /** Who took the lstats, when the walk shared them with the lstat thread. */
  statThread?: StatThreadCounts;
}

/** Git's id of the empty tree. */
/** A stat this close to the scan may hide a later same-size write within the clock tick. */
const racyWindowMs = 5;
/** Entries scanned between two turns of the event loop. */
const entriesPerYield = 500;

export interface ScanState extends ScanOptions {
  changes: number;
  listedFolders: number;
  started: number;
  sinceYield: number;
  gitignoreRules: Map<string, CompiledRules>;
  /** The lstats this walk took up front with the lstat thread (shared-walk.ts). */
  shared?: SharedWalk;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function checkSignal(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : aideError("ABORTED");
}

/**
 * Never captured, whatever the configuration says: any `.git` (file or folder, so nested
 * repositories and worktrees keep their git data to themselves) and any `.aide` (ours, and a
 * nested workspace's shadow repository, which would otherwise be copied into this one).
 */
export function isAlwaysExcluded(_relativeDir: string, name: string): boolean {
  return name === ".git" || name === ".aide";
}

function rulesFor(state: ScanState, relativeDir: string): CompiledRules {
  if (!state.respectGitignore) return state.excludes;
  const cached = state.gitignoreRules.get(relativeDir);
  if (cached) return cached;
  const parent = relativeDir === "" ? undefined : rulesFor(state, relativeDir.includes("/") ? relativeDir.slice(0, relativeDir.lastIndexOf("/")) : "");
  let own: IgnoreRule[] = [];
  try {
    own = parseIgnoreFile(readFileSync(fsPath(state.workspace, relativeDir === "" ? ".gitignore" : `${relativeDir}/.gitignore`), "utf8"), relativeDir);
  } catch {
    // no .gitignore here
  }
  let rules: CompiledRules;
  if (parent === undefined) rules = own.length === 0 ? state.excludes : compileRules([...state.excludes.rules, ...own]);
  else rules = own.length === 0 ? parent : compileRules([...parent.rules, ...own]);
  state.gitignoreRules.set(relativeDir, rules);
  return rules;
}

export function isExcluded(state: ScanState, relativeDir: string, name: string, isDirectory: boolean): boolean {
  if (isAlwaysExcluded(relativeDir, name)) return true;
  const path = relativeDir === "" ? name : `${relativeDir}/${name}`;
  return matchCompiled(rulesFor(state, relativeDir), path, name, isDirectory);
}

export function countFiles(node: TreeNode | undefined): number {
  if (node === undefined || node.kind === "skipped") return 0;
  if (node.kind === "file") return 1;
  let count = 0;
  forEachFile(node, () => count++);
  return count;
}

/** Hashes (and stores) one file or symlink unless its stat matches the cached node. */
async function scanFile(state: ScanState, path: string, stats: EntryStats, previous: TreeNode | undefined): Promise<TreeNode> {
  const mode = fileMode(stats);
  if (mode !== "120000" && stats.size > state.maxFileBytes) {
    const reason = `larger than ${state.maxFileBytes} bytes (${stats.size})`;
    if (previous?.kind === "skipped" && previous.reason === reason) return previous;
    state.changes += countFiles(previous);
    return { kind: "skipped", reason };
  }
  if (statUnchanged(previous, stats, mode)) return previous as FileNode;
  let content: Buffer;
  try {
    const absolute = fsPath(state.workspace, path);
    content = mode === "120000" ? Buffer.from(readlinkSync(absolute, { encoding: "buffer" })) : readFileSync(absolute);
  } catch (error) {
    state.changes += countFiles(previous);
    return { kind: "skipped", reason: `unreadable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  const oid = hashObject("blob", content);
  if (previous?.kind !== "file" || previous.oid !== oid) {
    await state.sink.write("blob", content, oid);
    state.changes += previous?.kind === "dir" ? countFiles(previous) + 1 : 1;
  } else if (previous.mode !== mode) state.changes += 1;
  const node = fileNodeOf(stats, oid, state.started);
  state.progress?.push([path, node]);
  return node;
}

/**
 * The cache node for a file whose content has id `oid`, given its stat. `since`: when the caller
 * began (a scan's start, or the moment a restore finished writing); a stat that recent is racy,
 * because a later write within the same clock tick would leave it unchanged.
 */
export function fileNodeOf(stats: EntryStats, oid: string, since: number): FileNode {
  const racy = stats.mtimeMs >= since - racyWindowMs || stats.ctimeMs >= since - racyWindowMs;
  return { kind: "file", mode: fileMode(stats), size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, oid, ...(racy ? { racy: true } : {}) };
}

/** Scans one workspace entry (file, link or folder) given its lstat. */
export async function scanEntry(state: ScanState, relativeDir: string, name: string, stats: EntryStats, previous: TreeNode | undefined): Promise<TreeNode | undefined> {
  const path = relativeDir === "" ? name : `${relativeDir}/${name}`;
  if (state.signal.aborted) checkSignal(state.signal);
  if (stats.isDirectory()) {
    if (isExcluded(state, relativeDir, name, true)) return undefined;
    return scanDirectory(state, path, stats, previous?.kind === "dir" ? previous : undefined, previous);
  }
  if (isExcluded(state, relativeDir, name, false)) return undefined;
  if (stats.isFile() || stats.isSymbolicLink()) return scanFile(state, path, stats, previous);
  state.changes += countFiles(previous);
  return { kind: "skipped", reason: "not a regular file, folder or symlink" };
}

/** The listing to remember for a folder just listed; none when its stat is too recent to vouch for it (racy, as for files). */
function newListing(state: ScanState, stats: EntryStats | undefined): FolderListing | undefined {
  if (stats === undefined || state.respectGitignore) return undefined;
  if (stats.mtimeMs >= state.started - racyWindowMs || stats.ctimeMs >= state.started - racyWindowMs) return undefined;
  return { mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, rules: state.excludes };
}

/** A new node that captures the same content as the old one (a file's stat changed, a folder was listed again). */
function sameContent(node: TreeNode, before: TreeNode | undefined): boolean {
  if (before === undefined) return false;
  if (node.kind === "file") return before.kind === "file" && before.oid === node.oid && before.mode === node.mode;
  if (node.kind === "dir") return before.kind === "dir" && node.oid !== undefined && before.oid === node.oid;
  return before.kind === "skipped";
}

/**
 * Returns a new node for the folder at `path` (the previous node is never mutated but for its
 * listing, so an abandoned scan leaves the cache as it was), reusing the previous tree id when
 * nothing below changed. `folderStats` is the folder's lstat, taken before it is listed; when it matches the
 * previous listing the folder is not read again: only its known entries are looked at.
 */
async function scanDirectory(state: ScanState, path: string, folderStats: EntryStats | undefined, previous: DirNode | undefined, replaced?: TreeNode): Promise<DirNode> {
  checkSignal(state.signal);
  if (state.sinceYield >= entriesPerYield) {
    state.sinceYield = 0;
    await yieldToLoop();
  }
  if (replaced !== undefined && replaced.kind !== "dir") state.changes += countFiles(replaced);
  const reuseListing = listingHolds(state, previous, folderStats);
  if (!reuseListing) state.listedFolders++;
  const listed = reuseListing ? undefined : listDirectory(fsPath(state.workspace, path));
  const names = listed === undefined ? [...(previous as DirNode).children.keys()] : listed.map((entry) => entry.name);
  const children = new Map<string, TreeNode>();
  const seen = new Set<string>();
  let contentChanged = previous === undefined || previous.oid === undefined;
  let nodesReplaced = false;
  for (let index = 0; index < names.length; index++) {
    // Let other requests (another workspace's commit, a list) run now and then.
    if (++state.sinceYield >= entriesPerYield) {
      state.sinceYield = 0;
      checkSignal(state.signal);
      await yieldToLoop();
    }
    const name = names[index];
    seen.add(name);
    if (isAlwaysExcluded(path, name)) continue;
    const before = previous?.children.get(name);
    const childPath = path === "" ? name : `${path}/${name}`;
    const shared = state.shared;
    const slot = shared === undefined ? -1 : shared.slotOf(childPath);
    // Known from the lstats taken up front to be as cached, with all below it: kept as it is.
    if (slot >= 0 && before !== undefined && shared!.unchangedAt(slot, before) && !isExcluded(state, path, name, before.kind === "dir")) {
      children.set(name, before);
      if (before.kind === "dir") shared!.skipBelow(slot);
      continue;
    }
    let stats: EntryStats;
    try {
      const absolute = fsPath(state.workspace, childPath);
      stats = shared === undefined ? lstatSync(absolute) : shared.stats(slot, absolute);
    } catch (error) {
      const isDirectory = listed === undefined ? before?.kind === "dir" : listed[index].isDirectory();
      if (!isExcluded(state, path, name, isDirectory)) {
        children.set(name, { kind: "skipped", reason: `unreadable: ${(error as NodeJS.ErrnoException).code ?? "error"}` });
        state.changes += countFiles(before);
      }
      if (before !== undefined) contentChanged = true;
      continue;
    }
    // The common case, an unchanged file, stays synchronous: no promise per entry.
    if (before?.kind === "file" && fileStillCached(before, stats, state.maxFileBytes) && !isExcluded(state, path, name, false)) {
      children.set(name, before);
      continue;
    }
    const node = await scanEntry(state, path, name, stats, before);
    if (node === undefined) {
      if (before !== undefined) {
        contentChanged = true;
        state.changes += countFiles(before);
      }
      continue;
    }
    children.set(name, node);
    if (node === before) continue;
    if (sameContent(node, before)) nodesReplaced = true;
    else contentChanged = true;
  }
  if (previous !== undefined) {
    for (const [name, before] of previous.children) {
      if (!seen.has(name)) {
        contentChanged = true;
        state.changes += countFiles(before);
      }
    }
  }
  const listing = reuseListing ? previous?.listing : newListing(state, folderStats);
  if (!contentChanged && previous !== undefined) {
    if (!nodesReplaced) {
      // The same entries, the same nodes: the listing is the one thing learnt, and it is true of
      // `previous` too (the only field a scan ever sets on a node it did not make).
      if (listing === undefined) delete previous.listing;
      else previous.listing = listing;
      return previous;
    }
    // Same content, new nodes below: the tree id stands, nothing to hash.
    return { kind: "dir", children, oid: previous.oid, ...(listing ? { listing } : {}) };
  }
  const dir: DirNode = { kind: "dir", children, ...(listing ? { listing } : {}) };
  dir.oid = await writeTreeOf(state.sink, dir, previous?.oid);
  return dir;
}

interface ListedEntry {
  name: string;
  isDirectory(): boolean;
}

/**
 * A folder's entries. Names are read as UTF-8 (the fast path); when one did not decode, the folder
 * is read again as bytes so that name keeps its exact bytes (raw-names.ts).
 */
function listDirectory(path: string | Buffer): ListedEntry[] {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
  if (!dirents.some((dirent) => dirent.name.includes("\uFFFD"))) return dirents;
  try {
    return readdirSync(path, { withFileTypes: true, encoding: "buffer" }).map((dirent) => {
      const name = decodeName(dirent.name);
      return { name, isDirectory: () => dirent.isDirectory() };
    });
  } catch {
    return [];
  }
}

/** Builds and stores the tree object of a folder whose children all have ids. */
export async function writeTreeOf(sink: ObjectSink, dir: DirNode, storedOid?: string): Promise<string> {
  const entries: TreeEntry[] = [];
  for (const [name, node] of dir.children) {
    if (node.kind === "skipped") continue;
    if (node.kind === "file") entries.push({ name, mode: node.mode, oid: node.oid });
    else {
      if (node.oid === undefined) node.oid = await writeTreeOf(sink, node);
      if (node.oid !== emptyTreeOid) entries.push({ name, mode: "40000", oid: node.oid });
    }
  }
  const sorted = Object.freeze(sortTreeEntries(entries));
  const content = encodeTree(sorted);
  const oid = hashObject("tree", content);
  if (oid !== dir.oid && oid !== storedOid) await sink.write("tree", content, oid);
  sink.knowTree?.(oid, sorted);
  return oid;
}

/** Walks the whole workspace. */
export function newScanState(options: ScanOptions): ScanState {
  return { ...options, changes: 0, listedFolders: 0, started: options.now(), sinceYield: 0, gitignoreRules: new Map() };
}

export async function scanWorkspace(previous: DirNode, options: ScanOptions): Promise<ScanResult> {
  const state = newScanState(options);
  let rootStats: EntryStats | undefined;
  try {
    rootStats = lstatSync(options.workspace);
  } catch {
    rootStats = undefined;
  }
  state.shared = options.prefetch === undefined ? undefined : SharedWalk.start(options.prefetch, options.workspace, previous, minPrefetchPaths);
  let root: DirNode;
  let statThread: StatThreadCounts | undefined;
  try {
    await state.shared?.takeLstats(
      state,
      async () => {
        checkSignal(state.signal);
        await yieldToLoop();
      },
      entriesPerYield,
    );
    root = await scanDirectory(state, "", rootStats, previous);
  } finally {
    statThread = state.shared?.finish();
  }
  if (root === previous && root.oid === undefined) root.oid = await writeTreeOf(options.sink, root);
  return { root, changes: state.changes, listedFolders: state.listedFolders, ...(statThread ? { statThread } : {}) };
}
