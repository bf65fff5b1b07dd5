/** The eval runner and report for other packages (the bench). */
export { runEval, loadEvalTasks, evalAllowedCommands, type EvalRunOptions } from "./run-eval.js";
export { readResults, reportMarkdown, scoreModels } from "./eval-report.js";
export type { AttemptRecord } from "./attempt-record.js";
export { startStack } from "../client/stack-discovery.js";
