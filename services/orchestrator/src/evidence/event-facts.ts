import type { EvidenceEvent } from "./evidence-kind.js";

/** Tools whose success changes workspace files (what "a mutation" means to the evidence gate). */
export const MUTATION_TOOLS: ReadonlySet<string> = new Set(["write_file", "replace_in_file", "apply_patch"]);
export const EXECUTION_TOOLS: ReadonlySet<string> = new Set(["run_command", "process_start", "process_poll"]);
/** Tools that run a command line (their `command` argument is what a completion may cite). */
export const COMMAND_TOOLS: ReadonlySet<string> = new Set(["run_command", "process_start"]);

export function normalizePath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
}

export function exitCode(event: EvidenceEvent): number | undefined {
  const code = event.metadata["exit_code"];
  return typeof code === "number" ? code : undefined;
}

export function succeeded(event: EvidenceEvent): boolean {
  const code = exitCode(event);
  return !event.is_error && (code === undefined || code === 0);
}

/** The workspace paths a call changed (its reported changed paths, else a mutation tool's `path`). */
export function mutatedPaths(event: EvidenceEvent): string[] {
  if (event.changed_paths.length > 0) return event.changed_paths.map(normalizePath);
  const path = event.args["path"];
  return MUTATION_TOOLS.has(event.tool) && typeof path === "string" ? [normalizePath(path)] : [];
}

export function commandOf(event: EvidenceEvent): string | undefined {
  const command = event.args["command"];
  return COMMAND_TOOLS.has(event.tool) && typeof command === "string" ? command : undefined;
}

/** Why a proposed call never ran, in the words the model and the person read. */
export function whyNotRun(event: EvidenceEvent): string {
  const denied = event.metadata["denied"];
  if (denied === "rejected") return "rejected by the person";
  if (denied === "timeout") return "not approved in time";
  if (typeof denied === "string") return `not run (${denied})`;
  if (event.metadata["refused"] === true) return "refused";
  if (event.metadata["skipped"] === true) return "skipped as a duplicate";
  return "not run";
}

export function describeEvent(event: EvidenceEvent): string {
  const command = event.args["command"];
  const path = event.args["path"];
  const target = typeof command === "string" ? ` \`${command.slice(0, 120)}\`` : typeof path === "string" ? ` ${path}` : "";
  const code = exitCode(event);
  const notRun = event.metadata["denied"] !== undefined || event.metadata["refused"] === true;
  const status = notRun ? ` ${whyNotRun(event)}` : event.is_error ? " failed" : code === undefined ? "" : ` exit ${code}`;
  return `#${event.seq} ${event.tool}${target}${status}`;
}
