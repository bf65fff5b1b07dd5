import { LspChecker, type LspCheckerOptions } from "./lsp-checker.js";

export type PyrightCheckerOptions = LspCheckerOptions;

/**
 * pyright's language server (`pyright-langserver --stdio`), one warm per workspace root: it
 * publishes once per document version, so a check takes the diagnostics that name its version.
 */
export class PyrightChecker extends LspChecker {
  constructor(options: PyrightCheckerOptions) {
    super({ source: "pyright", languageId: "python" }, options);
  }
}
