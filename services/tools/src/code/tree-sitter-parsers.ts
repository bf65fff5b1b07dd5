import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { readFile } from "node:fs/promises";
import type ParserModule from "web-tree-sitter";
import { tagQueries } from "./tag-queries.js";

type Parser = ParserModule;
type Language = ParserModule.Language;
type Query = ParserModule.Query;

export interface LoadedGrammar {
  language: string;
  parser: Parser;
  query: Query;
}

/**
 * The one WASM runtime of the process. A module-level value on purpose: web-tree-sitter 0.20's
 * Emscripten glue replaces its own `module.exports` with the runtime's Module once initialised, so
 * a second `require` after the first init no longer returns the Parser class.
 */
let runtime: Promise<typeof ParserModule> | undefined;

/**
 * web-tree-sitter and the prebuilt grammars, both read from the installed packages (node_modules
 * of the tools service; nothing is downloaded). The runtime is initialised once, each grammar
 * loaded on first use and kept; a grammar that fails to load stays failed with its message.
 */
export class TreeSitterParsers {
  private readonly grammars = new Map<string, Promise<LoadedGrammar>>();
  private readonly require = createRequire(import.meta.url);

  private init(): Promise<typeof ParserModule> {
    runtime ??= (async () => {
      const Parser = this.require("web-tree-sitter") as typeof ParserModule;
      const wasm = this.require.resolve("web-tree-sitter/tree-sitter.wasm");
      await Parser.init({ locateFile: () => wasm });
      return Parser;
    })();
    return runtime;
  }

  /** The parser and definitions query for `language` (grammar file `wasm` in tree-sitter-wasms/out). Throws when it cannot load. */
  grammar(language: string, wasm: string): Promise<LoadedGrammar> {
    let loaded = this.grammars.get(language);
    if (loaded === undefined) {
      loaded = (async () => {
        const Parser = await this.init();
        const directory = join(dirname(this.require.resolve("tree-sitter-wasms/package.json")), "out");
        const grammar: Language = await Parser.Language.load(await readFile(join(directory, wasm)));
        const parser = new Parser();
        parser.setLanguage(grammar);
        const source = tagQueries[language];
        if (source === undefined) throw new Error(`no definitions query for ${language}`);
        return { language, parser, query: grammar.query(source) };
      })();
      this.grammars.set(language, loaded);
    }
    return loaded;
  }
}
