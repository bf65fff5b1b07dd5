/** A call as the guards see it: a tool name and its (normalized) arguments. */
export type GuardedCall = { name: string; arguments: Record<string, unknown> };

/** JSON with sorted keys, so two calls with the same arguments in another order are identical. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableStringify(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Arguments that do not change what a call does. */
const IGNORED_ARGUMENTS = new Set(["timeout_ms", "timeout", "requires_approval", "description"]);

export function callKey(call: GuardedCall): string {
  const args = Object.fromEntries(Object.entries(call.arguments).filter(([key]) => !IGNORED_ARGUMENTS.has(key)));
  if (typeof args["command"] === "string") args["command"] = args["command"].trim().replace(/\s+/g, " ");
  return `${call.name}:${stableStringify(args)}`;
}

export const WRITE_TOOLS = new Set(["write_file", "replace_in_file", "apply_patch"]);
export const COMMAND_TOOLS = new Set(["run_command", "process_start"]);

/** Workspace-relative path as the tools service reports it: `./a/b` and `a//b` are `a/b`. */
export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, "/")
    .replace(/\/{2,}/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/\/$/, "");
}

export function callPath(call: GuardedCall): string | undefined {
  const path = call.arguments["path"];
  return typeof path === "string" ? normalizePath(path) : undefined;
}
