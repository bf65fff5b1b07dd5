import { actAfterReads } from "./act-after-reads.js";
import { autoLint } from "./auto-lint.js";
import { autoTest } from "./auto-test.js";
import { loopBreaker } from "./break-loops.js";
import { codeMap } from "./code-map.js";
import { codeNeedsRun } from "./code-needs-run.js";
import { completionGrammar } from "./completion-grammar.js";
import { exploreFirst } from "./explore-first.js";
import { prefixFailingOutput } from "./failing-output.js";
import { fewShot } from "./few-shot-file.js";
import { followImports } from "./follow-imports.js";
import { leanCalls } from "./lean-calls.js";
import { lineEdits } from "./line-edits.js";
import { pathGrammar } from "./path-grammar.js";
import { searchGrammar } from "./search-grammar.js";
import type { Strategy } from "./strategy.js";
import { workspaceFiles } from "./workspace-files.js";

/**
 * Every strategy, in the order the loop runs their hooks. Grammar: follow_imports first (path_grammar
 * and act_after_reads read its files), search_grammar before line_edits (which narrows its edits);
 * the tools left out are named completion_grammar's, explore_first's, act_after_reads', then
 * search_grammar's. After a batch: the breaker reads the model's own calls first, then aide may add
 * its test run, then the edits' new problems are restated. The stable prefix: the workspace's files,
 * the code map, then the test output.
 */
export const strategyRegistry: readonly Strategy[] = [
  followImports,
  pathGrammar,
  completionGrammar,
  exploreFirst,
  actAfterReads,
  searchGrammar,
  lineEdits,
  leanCalls,
  loopBreaker,
  autoTest,
  autoLint,
  fewShot,
  workspaceFiles,
  codeMap,
  prefixFailingOutput,
  codeNeedsRun,
];
