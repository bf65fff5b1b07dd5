/** A language the code tools understand, and the prebuilt grammar (from `tree-sitter-wasms`) that parses it. */
export interface Grammar {
  language: string;
  /** File name under `tree-sitter-wasms/out/`; null: no tree-sitter grammar (Markdown headings are scanned by line). */
  wasm: string | null;
}

const byExtension: Record<string, Grammar> = {
  ".ts": { language: "typescript", wasm: "tree-sitter-typescript.wasm" },
  ".mts": { language: "typescript", wasm: "tree-sitter-typescript.wasm" },
  ".cts": { language: "typescript", wasm: "tree-sitter-typescript.wasm" },
  ".tsx": { language: "tsx", wasm: "tree-sitter-tsx.wasm" },
  ".js": { language: "javascript", wasm: "tree-sitter-javascript.wasm" },
  ".mjs": { language: "javascript", wasm: "tree-sitter-javascript.wasm" },
  ".cjs": { language: "javascript", wasm: "tree-sitter-javascript.wasm" },
  ".jsx": { language: "javascript", wasm: "tree-sitter-javascript.wasm" },
  ".py": { language: "python", wasm: "tree-sitter-python.wasm" },
  ".pyi": { language: "python", wasm: "tree-sitter-python.wasm" },
  ".go": { language: "go", wasm: "tree-sitter-go.wasm" },
  ".rs": { language: "rust", wasm: "tree-sitter-rust.wasm" },
  ".java": { language: "java", wasm: "tree-sitter-java.wasm" },
  ".c": { language: "c", wasm: "tree-sitter-c.wasm" },
  ".h": { language: "c", wasm: "tree-sitter-c.wasm" },
  ".cc": { language: "cpp", wasm: "tree-sitter-cpp.wasm" },
  ".cpp": { language: "cpp", wasm: "tree-sitter-cpp.wasm" },
  ".cxx": { language: "cpp", wasm: "tree-sitter-cpp.wasm" },
  ".hpp": { language: "cpp", wasm: "tree-sitter-cpp.wasm" },
  ".hh": { language: "cpp", wasm: "tree-sitter-cpp.wasm" },
  ".json": { language: "json", wasm: "tree-sitter-json.wasm" },
  ".yaml": { language: "yaml", wasm: "tree-sitter-yaml.wasm" },
  ".yml": { language: "yaml", wasm: "tree-sitter-yaml.wasm" },
  ".md": { language: "markdown", wasm: null },
  ".markdown": { language: "markdown", wasm: null },
};

/** The grammar for a path by its extension, or undefined when no code tool reads that type. */
export function grammarFor(relativePath: string): Grammar | undefined {
  const match = /\.[A-Za-z0-9]+$/.exec(relativePath);
  return match === null ? undefined : byExtension[match[0].toLowerCase()];
}

export const supportedExtensions: readonly string[] = Object.keys(byExtension);
