import { createHash } from "node:crypto";
import type { FileTags } from "./code-definition.js";
import { grammarFor } from "./grammar-table.js";
import { markdownHeadings } from "./markdown-headings.js";
import { extractTags } from "./extract-tags.js";
import type { TreeSitterParsers } from "./tree-sitter-parsers.js";

export type TagsOutcome = { ok: true; tags: FileTags; cached: boolean } | { ok: false; reason: "unsupported" | "grammar_failed"; message: string };

export interface TagCacheCounters {
  /** Parses done since the service started (a file whose content was seen before is not parsed). */
  parses: number;
  cacheHits: number;
}

/**
 * Tags keyed by the SHA-256 of the content and the language: the same bytes are never parsed
 * twice, whichever path or workspace they come from. At most `maxEntries` are kept, oldest use
 * dropped first.
 */
export class TagCache {
  readonly counters: TagCacheCounters = { parses: 0, cacheHits: 0 };
  private readonly entries = new Map<string, FileTags>();

  constructor(
    private readonly parsers: TreeSitterParsers,
    private readonly maxEntries = 50_000,
  ) {}

  async tagsOf(relativePath: string, content: Buffer): Promise<TagsOutcome> {
    const grammar = grammarFor(relativePath);
    if (grammar === undefined) return { ok: false, reason: "unsupported", message: `${relativePath}: no parser for this file type` };
    const key = `${grammar.language}:${createHash("sha256").update(content).digest("hex")}`;
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, known);
      this.counters.cacheHits += 1;
      return { ok: true, tags: known, cached: true };
    }
    const text = content.toString("utf8");
    let tags: FileTags;
    if (grammar.wasm === null) tags = markdownHeadings(text);
    else {
      let loaded;
      try {
        loaded = await this.parsers.grammar(grammar.language, grammar.wasm);
      } catch (error) {
        return { ok: false, reason: "grammar_failed", message: `the ${grammar.language} grammar did not load: ${(error as Error).message}` };
      }
      tags = extractTags(loaded, text);
    }
    this.counters.parses += 1;
    this.entries.set(key, tags);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return { ok: true, tags, cached: false };
  }
}
