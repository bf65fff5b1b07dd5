/** The eval runner and report for other packages (the bench). */
export { runEval, loadEvalTasks, evalAllowedCommands, type EvalRunOptions } from "./run-eval.js";
export { readResults, buildReport, scoreVariants, variantOf, type EvalReport, type VariantScore } from "./eval-report.js";
export { writeReport, reportFiles } from "./write-report.js";
export { parseArm, parseArms, type EvalArm } from "./parse-arm.js";
export { fillPlan } from "./fill-repeats.js";
export type { AttemptRecord } from "./attempt-record.js";
export { startStack } from "../client/stack-discovery.js";
export { runHiddenCheck, type CheckOutcome, type HiddenCheckInput } from "./run-hidden-check.js";
