import type { AnyTool } from "../framework/tool-types.js";
import { readFileTool } from "./read-file.js";
import { listDirTool } from "./list-dir.js";
import { createSearchFilesTool, type SearchEngines } from "./search-files.js";
import { writeFileTool } from "./write-file.js";
import { replaceInFileTool } from "./replace-in-file.js";
import { applyPatchTool } from "./apply-patch.js";
import { runCommandTool } from "./run-command.js";
import { processStartTool } from "./process-start.js";
import { processPollTool } from "./process-poll.js";
import { processCancelTool } from "./process-cancel.js";
import { gitStatusTool } from "./git-status.js";
import { gitDiffTool } from "./git-diff.js";
import { ripgrepSearch } from "../search/ripgrep-search.js";
import { javascriptSearch } from "../search/javascript-search.js";
import type { RipgrepCommand } from "../search/ripgrep-jail.js";
import type { SearchQuery } from "../search/search-types.js";
import { CodeIntelligence } from "../code/code-intelligence.js";
import { createListCodeDefinitionsTool } from "./list-code-definitions.js";
import { createCodeMapTool } from "./code-map.js";
import { createDiagnosticsTool } from "./diagnostics.js";
import { TypeScriptChecker } from "../code/typescript-checker.js";
import { plainWorker } from "../code/diagnostics-worker-command.js";
import { CheckerSet } from "../code/checker-set.js";

export interface CatalogOptions {
  /** Whether `rg` is on PATH; the JS search is used otherwise. */
  ripgrep: boolean;
  /** How rg is started (its mount jail); without one, and without bubblewrap, use `ripgrep: false`. */
  ripgrepCommand?: RipgrepCommand;
  /** The tag cache and workspace indexes behind list_code_definitions and code_map (one per service). */
  code?: CodeIntelligence;
  /** The warm checkers behind `diagnostics` (and the feedback after edits); default: TypeScript only. */
  checkers?: CheckerSet;
}

/** Every tool the service executes, in the order the catalog shows them. */
export function allTools(options: CatalogOptions = { ripgrep: true }): AnyTool[] {
  const { ripgrepCommand } = options;
  const ripgrep = (query: SearchQuery) => ripgrepSearch(ripgrepCommand === undefined ? query : { ...query, ripgrepCommand });
  const code = options.code ?? new CodeIntelligence();
  const engines: SearchEngines = { javascript: javascriptSearch, ...(options.ripgrep ? { ripgrep } : {}) };
  return [
    readFileTool,
    listDirTool,
    createSearchFilesTool(engines),
    writeFileTool,
    replaceInFileTool,
    applyPatchTool,
    runCommandTool,
    processStartTool,
    processPollTool,
    processCancelTool,
    gitStatusTool,
    gitDiffTool,
    createListCodeDefinitionsTool(code),
    createCodeMapTool(code),
    createDiagnosticsTool(options.checkers ?? new CheckerSet({ typescript: new TypeScriptChecker({ command: plainWorker(), timeoutMs: 60_000, idleMs: 600_000 }) })),
  ];
}
