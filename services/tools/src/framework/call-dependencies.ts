import type { Logger } from "pino";
import type { ToolRegistry } from "./tool-registry.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ProcessRegistry } from "../sandbox/process-registry.js";
import type { LintGate } from "../lint/lint-gate.js";
import type { CodeIntelligence } from "../code/code-intelligence.js";

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
}
