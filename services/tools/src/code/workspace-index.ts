import type { Dirent } from "node:fs";
import type { Workspace } from "../jail/workspace.js";
import type { DirectoryHandle } from "../jail/directory-handle.js";
import { IgnoreFile } from "../search/gitignore.js";
import type { FileTags } from "./code-definition.js";
import { grammarFor } from "./grammar-table.js";
import type { TagCache } from "./tag-cache.js";

/** Folders a map never walks: version control, the agent's state, dependencies and build output. */
const skippedDirectories = new Set([".git", ".aide", "node_modules", "dist", "build", "target", "vendor", ".venv", "venv", "__pycache__", ".next", ".cache", "coverage"]);
const maxFileBytes = 512 * 1024;

interface IndexedFile {
  size: number;
  mtimeMs: number;
  tags: FileTags;
}

/** What one refresh did: files seen, read (new or changed), parsed (content never seen), dropped. */
export interface RefreshStats {
  files: number;
  read: number;
  parsed: number;
  removed: number;
  /** The walk stopped at `maxFiles`. */
  incomplete: boolean;
}

/**
 * One workspace's files and their tags, kept between calls. A refresh walks the tree through the
 * jail (every directory opened inside its parent, no link followed, `.gitignore` honoured), reads
 * only files whose size or modification time changed or that a tool reported changed, and the tag
 * cache parses only content it has not seen.
 */
export class WorkspaceIndex {
  readonly files = new Map<string, IndexedFile>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly cache: TagCache,
    private readonly maxFiles = 20_000,
  ) {}

  /** Paths a tool changed (its `changed_paths`): read again at the next refresh even if size and time look the same. */
  noteChanged(paths: readonly string[]): void {
    for (const path of paths) this.reported.add(path);
  }

  async refresh(workspace: Workspace, signal?: AbortSignal): Promise<RefreshStats> {
    const stats: RefreshStats = { files: 0, read: 0, parsed: 0, removed: 0, incomplete: false };
    const seen = new Set<string>();
    const visit = async (directory: DirectoryHandle, ignores: Array<{ base: string; file: IgnoreFile }>): Promise<void> => {
      if (signal?.aborted) throw new Error("aborted");
      const own = (await directory.readRegularFile(".gitignore"))?.toString("utf8");
      const scoped = own === undefined ? ignores : [...ignores, { base: directory.relative, file: new IgnoreFile(own) }];
      let entries: Dirent[] = [];
      try {
        entries = directory.entries();
      } catch {
        return;
      }
      entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
      for (const entry of entries) {
        if (stats.files >= this.maxFiles) {
          stats.incomplete = true;
          return;
        }
        const relative = directory.childRelative(entry.name);
        const isDirectory = entry.isDirectory();
        if (isDirectory && skippedDirectories.has(entry.name)) continue;
        let ignored = false;
        for (const { base, file } of scoped) {
          const verdict = file.test(base === "." ? relative : relative.slice(base.length + 1), isDirectory);
          if (verdict !== undefined) ignored = verdict;
        }
        if (ignored) continue;
        if (isDirectory) {
          const child = directory.openDirectory(entry.name);
          if (child.kind !== "directory") continue;
          try {
            await visit(child.handle, scoped);
          } finally {
            child.handle.close();
          }
          continue;
        }
        if (!entry.isFile() || grammarFor(relative) === undefined) continue;
        const fileStats = directory.lstat(entry.name);
        if (fileStats === null || !fileStats.isFile() || fileStats.size > maxFileBytes) continue;
        stats.files += 1;
        seen.add(relative);
        const known = this.files.get(relative);
        if (known !== undefined && known.size === fileStats.size && known.mtimeMs === fileStats.mtimeMs && !this.reported.has(relative)) continue;
        const content = await directory.readRegularFile(entry.name);
        if (content === undefined) continue;
        stats.read += 1;
        const outcome = await this.cache.tagsOf(relative, content);
        if (outcome.ok && !outcome.cached) stats.parsed += 1;
        // A grammar that failed to load is not retried for an unchanged file.
        const tags = outcome.ok ? outcome.tags : { language: "unknown", definitions: [], references: [] };
        this.files.set(relative, { size: fileStats.size, mtimeMs: fileStats.mtimeMs, tags });
      }
    };
    const root = await workspace.openDirectory(".");
    if (root.kind !== "directory") return stats;
    try {
      await visit(root.handle, []);
    } finally {
      root.handle.close();
    }
    this.reported.clear();
    if (!stats.incomplete) {
      for (const path of [...this.files.keys()]) {
        if (!seen.has(path)) {
          this.files.delete(path);
          stats.removed += 1;
        }
      }
    }
    return stats;
  }
}
