import { posix } from "node:path";
import type { RunContext } from "../run/run-context.js";
import { MUTATION_TOOLS } from "../evidence/event-facts.js";
import { workspaceListing } from "./path-grammar.js";
import type { Strategy } from "./strategy.js";

/** The most reads since the last applied change after which nothing more is followed. */
const MOST_STAGE_READS = 3;
/** Lines of a read file looked at for its imports. */
const MOST_LINES = 400;
/** A numbered line of read_file's output: the number, a tab, the text. */
const NUMBERED = /^ *\d+\t(.*)$/;

/**
 * The follow_imports strategy (issue 28; off unless the start sets it; it acts inside
 * act_after_reads): once a read_file succeeded, the reads stay open while a file read since the
 * last applied change imports a workspace file this run has not read, and under path_grammar the
 * read's path is one of those files. Measured before it: on the demo's failing-test task, under
 * `anchored` and `lines`, both models read `test/cart.test.js`, then (the reads closed) edited that
 * test file until the syntax check discarded it, 10 of 10 attempts each, and never opened
 * `src/cart.js`, the file the test imports and the fix is in. What counts as an import is what the
 * file's language spells as one and resolves to a file of the workspace listing: a relative
 * JavaScript/TypeScript `import`/`require`, a Python `import`/`from … import` of a module beside
 * the file, at the root or under `src/`, a shell `source`/`.`, a Go test's package files, a Rust
 * `mod`/`use crate::` (a `tests/` file's crate root), a Java class named in the file. At most three
 * reads since the last change: after them the change stage opens as act_after_reads has it.
 * Returns the files to read next, nearest first; none when it has nothing to follow. It runs only
 * with act_after_reads (the setting table says so).
 */
export async function importsToRead(context: RunContext, offered: readonly string[]): Promise<string[]> {
  if (!offered.includes("read_file")) return [];
  const stage: string[] = [];
  for (let index = context.state.tool_log.length - 1; index >= 0; index -= 1) {
    const entry = context.state.tool_log[index];
    if (entry.is_error) continue;
    if (MUTATION_TOOLS.has(entry.tool) && entry.changed_paths.length > 0) break;
    const path = readPath(entry);
    if (path !== undefined) stage.unshift(path);
  }
  if (stage.length === 0 || stage.length >= MOST_STAGE_READS) return [];
  const ever = new Set(
    context.state.tool_log
      .filter((entry) => !entry.is_error)
      .map(readPath)
      .filter((path): path is string => path !== undefined),
  );
  const files = new Set((await workspaceListing(context)).files);
  const wanted: string[] = [];
  for (const path of [...new Set(stage)].reverse()) {
    const text = await fileText(context, path);
    for (const target of importedFiles(path, text, files)) if (!ever.has(target) && !wanted.includes(target)) wanted.push(target);
  }
  return wanted;
}

export const followImports: Strategy = {
  setting: "follow_imports",
  async grammar(context, shaping) {
    shaping.importsToRead = await importsToRead(context, shaping.offered);
  },
};

function readPath(entry: RunContext["state"]["tool_log"][number]): string | undefined {
  if (entry.tool !== "read_file") return undefined;
  const named = entry.metadata.path ?? entry.args.path;
  return typeof named === "string" ? posix.normalize(named.replace(/^\.\//, "")) : undefined;
}

/** The file's text as read_file shows it (no event: the request's own input), or "" when it cannot be read. */
async function fileText(context: RunContext, path: string): Promise<string> {
  const record = context.session.record;
  try {
    const result = await context.seams.tools.exec(record.id, record.workspace, { id: context.seams.generateId(), name: "read_file", arguments: { path, limit: MOST_LINES } }, { network: false });
    if (result.is_error || result.metadata.binary === true) return "";
    return result.output
      .split("\n")
      .map((line) => NUMBERED.exec(line)?.[1])
      .filter((line): line is string => line !== undefined)
      .join("\n");
  } catch (error) {
    context.logger.warn({ err: error }, "reading a file for follow_imports failed; its imports are not followed");
    return "";
  }
}

const SCRIPT = /\.(?:[cm]?[jt]sx?)$/;
const SCRIPT_EXTENSIONS = [".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".mts", ".cts"];

/** The workspace files `text` (the file at `path`) imports, in the order it names them. */
export function importedFiles(path: string, text: string, files: ReadonlySet<string>): string[] {
  const dir = posix.dirname(path);
  const found: string[] = [];
  const add = (candidates: string[]) => {
    const hit = candidates.map((candidate) => posix.normalize(candidate)).find((candidate) => files.has(candidate) && candidate !== path);
    if (hit !== undefined && !found.includes(hit)) found.push(hit);
  };
  if (SCRIPT.test(path)) {
    const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"'\n]+)["']/g;
    for (const match of text.matchAll(specifier)) {
      const base = posix.join(dir, match[1]);
      const bare = base.replace(/\.(?:[cm]?js|jsx)$/, "");
      add([base, ...SCRIPT_EXTENSIONS.map((extension) => bare + extension), ...SCRIPT_EXTENSIONS.map((extension) => posix.join(base, `index${extension}`))]);
    }
  } else if (path.endsWith(".py")) {
    const roots = [dir, ".", "src"];
    for (const line of text.split("\n")) {
      const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+([\w\s,()]+)/.exec(line);
      const plain = from === null ? /^\s*import\s+([\w.]+(?:\s*,\s*[\w.]+)*)/.exec(line) : null;
      if (from !== null) {
        const [, dots, module, names] = from;
        const bases = dots.length > 0 ? [posix.join(dir, ...Array<string>(dots.length - 1).fill(".."))] : roots;
        const modulePath = module.split(".").filter(Boolean).join("/");
        for (const base of bases) {
          if (modulePath !== "") add([posix.join(base, `${modulePath}.py`), posix.join(base, modulePath, "__init__.py")]);
          for (const name of names
            .replace(/[()]/g, "")
            .split(",")
            .map((part) => part.trim().split(/\s+/)[0])
            .filter(Boolean))
            add([posix.join(base, modulePath, `${name}.py`)]);
        }
      } else if (plain !== null) {
        for (const module of plain[1].split(",").map((part) => part.trim().split(".").join("/")))
          for (const base of roots) add([posix.join(base, `${module}.py`), posix.join(base, module, "__init__.py")]);
      }
    }
  } else if (/\.(?:sh|bash)$/.test(path)) {
    for (const match of text.matchAll(/^\s*(?:source|\.)\s+(.+)$/gm)) {
      // `"$(dirname "$0")/x.sh"`, `"${BASH_SOURCE%/*}/x.sh"`, `"$DIR/x.sh"`: beside the script.
      const unquoted = match[1].replace(/["']/g, "").replace(/^(?:\$\([^)]*\)+|\$\{[^}]*\}|\$\w+)\//, "");
      const named = unquoted.split(/[\s;&|#]/)[0];
      if (named !== "" && !named.includes("$")) add([posix.join(dir, named), named]);
    }
  } else if (path.endsWith("_test.go")) {
    for (const file of files) if (posix.dirname(file) === dir && file.endsWith(".go") && !file.endsWith("_test.go")) add([file]);
  } else if (path.endsWith(".rs")) {
    for (const match of text.matchAll(/^\s*(?:pub\s+)?mod\s+(\w+)\s*;/gm)) add([posix.join(dir, `${match[1]}.rs`), posix.join(dir, match[1], "mod.rs")]);
    for (const match of text.matchAll(/\buse\s+crate::(\w+)/g)) add([`src/${match[1]}.rs`, `src/${match[1]}/mod.rs`]);
    // An integration test uses the crate by its name: its root.
    if (path.startsWith("tests/")) add(["src/lib.rs"]);
  } else if (path.endsWith(".java")) {
    const classes = new Map([...files].filter((file) => file.endsWith(".java")).map((file) => [posix.basename(file, ".java"), file] as const));
    for (const match of text.matchAll(/\b[A-Z]\w*\b/g)) {
      const file = classes.get(match[0]);
      if (file !== undefined) add([file]);
    }
  }
  return found;
}
