import type ParserModule from "web-tree-sitter";
import type { Diagnostic } from "./diagnostic.js";
import type { CheckOutcome, Checker } from "./checker.js";
import { grammarFor } from "./grammar-table.js";
import type { TreeSitterParsers } from "./tree-sitter-parsers.js";

type SyntaxNode = ParserModule.SyntaxNode;

const maxProblems = 50;

/** The syntax errors tree-sitter finds in `text`: its ERROR nodes (unparsable text) and MISSING nodes (a token it had to assume). */
export function syntaxErrors(root: SyntaxNode, text: string): Diagnostic[] {
  const lines = text.split("\n");
  const found: Diagnostic[] = [];
  const visit = (node: SyntaxNode) => {
    if (found.length >= maxProblems) return;
    if (node.isMissing() || node.type === "ERROR") {
      const { row, column } = node.startPosition;
      const snippet = node.text.replace(/\s+/g, " ").slice(0, 40);
      found.push({
        line: row + 1,
        column: column + 1,
        code: node.isMissing() ? "syntax-missing" : "syntax-error",
        severity: "error",
        message: node.isMissing() ? `missing ${node.type}` : `cannot parse ${JSON.stringify(snippet)}`,
        text: (lines[row] ?? "").trim(),
      });
      if (node.type === "ERROR") return;
    }
    if (!node.hasError()) return;
    for (const child of node.children) visit(child);
  };
  visit(root);
  return found;
}

/** Why only the syntax check ran: a stable reason for metadata and a sentence for the model. */
export interface NoTypeChecker {
  reason: string;
  message: string;
}

/**
 * The fallback where a language's own checker is not on the machine: tree-sitter's parse of each
 * text (the grammar the code tools already load), reporting its syntax errors. Real, but syntax
 * only: it says so (`unavailable`) and never counts as a type check.
 */
export class SyntaxChecker implements Checker {
  readonly source = "tree-sitter syntax";

  constructor(
    private readonly parsers: TreeSitterParsers,
    readonly unavailable: NoTypeChecker,
  ) {}

  async check(_root: string, path: string, versions: string[]): Promise<CheckOutcome> {
    const grammar = grammarFor(path);
    if (grammar?.wasm === null || grammar === undefined) return { ok: false, timedOut: false, message: `no grammar for ${path}` };
    try {
      const loaded = await this.parsers.grammar(grammar.language, grammar.wasm);
      return {
        ok: true,
        results: versions.map((text) => {
          const tree = loaded.parser.parse(text);
          try {
            return syntaxErrors(tree.rootNode, text);
          } finally {
            tree.delete();
          }
        }),
      };
    } catch (error) {
      return { ok: false, timedOut: false, message: (error as Error).message };
    }
  }

  close(): void {}
}
