import type { Logger } from "pino";
import type { ToolRegistry } from "./tool-registry.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ProcessRegistry } from "../sandbox/process-registry.js";
import type { LintGate } from "../lint/lint-gate.js";

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
}
