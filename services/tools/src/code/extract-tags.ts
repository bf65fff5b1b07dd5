import type ParserModule from "web-tree-sitter";
import type { CodeDefinition, FileTags } from "./code-definition.js";
import type { LoadedGrammar } from "./tree-sitter-parsers.js";
import { referenceNodeTypes } from "./tag-queries.js";

type SyntaxNode = ParserModule.SyntaxNode;

const maxReferences = 5000;
const maxSignatureChars = 160;

function enclosedBy(node: SyntaxNode, containers: readonly string[], stopAt: readonly string[]): boolean {
  for (let parent = node.parent; parent !== null; parent = parent.parent) {
    if (containers.includes(parent.type)) return true;
    if (stopAt.includes(parent.type)) return false;
  }
  return false;
}

/** The kind a capture names, refined where the grammar's node alone does not say it. */
function refineKind(language: string, kind: string, node: SyntaxNode, name: string): string | null {
  if ((language === "typescript" || language === "tsx" || language === "javascript") && kind === "constant") {
    const value = node.childForFieldName("value")?.type;
    return value === "arrow_function" || value === "function_expression" || value === "function" ? "function" : kind;
  }
  if (language === "python") {
    if (kind === "function" && enclosedBy(node, ["class_definition"], ["function_definition"])) return "method";
    if (kind === "constant") return /^[A-Z][A-Z0-9_]*$/.test(name) ? kind : null;
  }
  if (language === "go" && kind === "type") {
    const type = node.childForFieldName("type")?.type;
    return type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : kind;
  }
  if (language === "rust" && kind === "function" && enclosedBy(node, ["impl_item", "trait_item"], ["function_item"])) return "method";
  return kind;
}

/** Go's specs leave their keyword on the enclosing declaration. */
const specKeywords: Record<string, string> = { type_spec: "type ", const_spec: "const " };

function signatureOf(definition: SyntaxNode): string {
  const node = definition.type === "variable_declarator" && definition.parent !== null ? definition.parent : definition;
  const first =
    (specKeywords[node.type] ?? "") +
    node.text
      .split("\n", 1)[0]
      .trim()
      .replace(/\s*\{$/, "");
  return first.length > maxSignatureChars ? `${first.slice(0, maxSignatureChars - 1)}…` : first;
}

/** A node that ends with its line's newline (a C `#define`) ends on that line, not the next. */
function lastLine(node: SyntaxNode): number {
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row : row + 1;
}

/** One parse of `text`: the definitions the language's query names and the names used elsewhere in it. */
export function extractTags(grammar: LoadedGrammar, text: string): FileTags {
  const tree = grammar.parser.parse(text);
  try {
    const definitions: CodeDefinition[] = [];
    const nameStarts = new Set<number>();
    const seen = new Set<string>();
    for (const match of grammar.query.matches(tree.rootNode)) {
      const nameCapture = match.captures.find((capture) => capture.name === "name");
      const definition = match.captures.find((capture) => capture.name.startsWith("definition."));
      if (nameCapture === undefined || definition === undefined) continue;
      let name = nameCapture.node.text;
      if (grammar.language === "json") name = name.replace(/^"|"$/g, "");
      const kind = refineKind(grammar.language, definition.name.slice("definition.".length), definition.node, name);
      const key = `${definition.node.startIndex}:${name}`;
      if (kind === null || seen.has(key)) continue;
      seen.add(key);
      nameStarts.add(nameCapture.node.startIndex);
      definitions.push({ name, kind, startLine: definition.node.startPosition.row + 1, endLine: lastLine(definition.node), signature: signatureOf(definition.node) });
    }
    definitions.sort((left, right) => left.startLine - right.startLine || right.endLine - left.endLine);
    const referenceTypes = new Set(referenceNodeTypes[grammar.language] ?? []);
    const references: string[] = [];
    if (referenceTypes.size > 0) {
      const cursor = tree.walk();
      try {
        let done = false;
        while (!done && references.length < maxReferences) {
          if (referenceTypes.has(cursor.nodeType) && !nameStarts.has(cursor.startIndex)) references.push(cursor.nodeText);
          if (cursor.gotoFirstChild()) continue;
          while (!cursor.gotoNextSibling()) {
            if (!cursor.gotoParent()) {
              done = true;
              break;
            }
          }
        }
      } finally {
        cursor.delete();
      }
    }
    return { language: grammar.language, definitions, references };
  } finally {
    tree.delete();
  }
}
