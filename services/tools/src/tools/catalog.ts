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

export interface CatalogOptions {
  /** Whether `rg` is on PATH; the JS search is used otherwise. */
  ripgrep: boolean;
}

/** Every tool the service executes, in the order the catalog shows them. */
export function allTools(options: CatalogOptions = { ripgrep: true }): AnyTool[] {
  const engines: SearchEngines = { javascript: javascriptSearch, ...(options.ripgrep ? { ripgrep: ripgrepSearch } : {}) };
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
  ];
}
