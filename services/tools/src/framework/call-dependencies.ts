import type { Logger } from "pino";
import type { ToolRegistry } from "./tool-registry.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ProcessRegistry } from "../sandbox/process-registry.js";
import type { LintGate } from "../lint/lint-gate.js";
import type { CodeIntelligence } from "../code/code-intelligence.js";
import type { EditFeedback } from "../code/edit-diagnostics.js";
import type { FileChange, ToolContext } from "./tool-types.js";

/** Everything a call needs from the service, injected (no module singletons). */
export interface CallDependencies {
  registry: ToolRegistry;
  sandbox: Sandbox;
  processes: ProcessRegistry;
  lint: LintGate;
  logger: Logger;
  /** AIDE_WORKSPACE_ROOTS; empty means any workspace directory is accepted. */
  workspaceRoots: readonly string[];
  now(): number;
  /** Told every result's changed paths, so the code map re-reads them (optional: tests of other parts). */
  code?: CodeIntelligence;
  /** After a successful edit: the problems it introduced, appended to the result. Must not throw; null when no checker applies. */
  diagnoseEdit?(changes: readonly FileChange[], context: ToolContext): Promise<EditFeedback | null>;
}
