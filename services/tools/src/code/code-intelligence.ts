import type { Workspace } from "../jail/workspace.js";
import type { FileTags } from "./code-definition.js";
import { TagCache } from "./tag-cache.js";
import { TreeSitterParsers } from "./tree-sitter-parsers.js";
import { WorkspaceIndex, type RefreshStats } from "./workspace-index.js";

/**
 * The service's code intelligence: one tag cache (by content) and one index per workspace root,
 * kept for the life of the process. Refreshes of one workspace run one after the other.
 */
export class CodeIntelligence {
  readonly cache: TagCache;
  private readonly indexes = new Map<string, { index: WorkspaceIndex; queue: Promise<unknown> }>();

  /** The grammars (also the syntax checker's, where a language has no checker on the machine). */
  readonly parsers: TreeSitterParsers;

  constructor(parsers = new TreeSitterParsers()) {
    this.parsers = parsers;
    this.cache = new TagCache(parsers);
  }

  private entry(root: string) {
    let entry = this.indexes.get(root);
    if (entry === undefined) {
      entry = { index: new WorkspaceIndex(this.cache), queue: Promise.resolve() };
      this.indexes.set(root, entry);
    }
    return entry;
  }

  /** A tool reported these workspace-relative paths changed: the next refresh reads them again. */
  noteChanged(root: string, paths: readonly string[]): void {
    if (paths.length > 0) this.indexes.get(root)?.index.noteChanged(paths);
  }

  /** The workspace's files and tags, brought up to date (only what changed is read). */
  async current(workspace: Workspace, signal?: AbortSignal): Promise<{ files: Map<string, FileTags>; stats: RefreshStats }> {
    const entry = this.entry(workspace.root);
    const run = entry.queue.then(() => entry.index.refresh(workspace, signal));
    entry.queue = run.catch(() => undefined);
    const stats = await run;
    return { files: new Map([...entry.index.files].map(([path, file]) => [path, file.tags])), stats };
  }

  /** Totals since start, for metadata: proof that unchanged content is not parsed again. */
  counters(): { parses_total: number; cache_hits_total: number } {
    return { parses_total: this.cache.counters.parses, cache_hits_total: this.cache.counters.cacheHits };
  }
}
