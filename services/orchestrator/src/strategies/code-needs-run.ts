import type { Strategy } from "./strategy.js";

/**
 * The code_needs_run strategy: the evidence gate takes a run (run_command, process_poll) or a clean
 * type check after a change to code or a build file as its verification, not a read back (the
 * ledger's `codeNeedsRun`); off, a later read verifies a change.
 */
export const codeNeedsRun: Strategy = {
  setting: "code_needs_run",
  completion: (options) => ({ ...options, codeNeedsRun: true }),
};
