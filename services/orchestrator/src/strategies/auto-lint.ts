import type { RunContext } from "../run/run-context.js";
import type { Strategy } from "./strategy.js";

/**
 * The auto_lint strategy: the new problems an edit introduced (the tools service's diagnostics of
 * the edited files, in the edit's metadata) restated as an instruction of their own after the
 * batch's results, so a small model does not overlook them at the end of a long edit result.
 */
export function autoLintNotices(context: RunContext): string[] {
  const notices: string[] = [];
  for (const call of context.state.batch) {
    const diagnostics = call.outcome?.metadata["diagnostics"];
    if (call.outcome?.is_error !== false || diagnostics === null || typeof diagnostics !== "object") continue;
    const { new_problems: count, problems, source } = diagnostics as { new_problems?: unknown; problems?: unknown; source?: unknown };
    if (typeof count !== "number" || count === 0 || !Array.isArray(problems)) continue;
    const lines = problems.slice(0, 10).map((problem) => {
      const { path, line, column, code, message } = problem as Record<string, unknown>;
      return `  ${String(path)}:${String(line)}:${String(column)} ${String(code)} ${String(message)}`;
    });
    notices.push(`auto_lint: your ${call.name} introduced ${count} new problem${count === 1 ? "" : "s"} (${String(source)}); fix ${count === 1 ? "it" : "them"} next:\n${lines.join("\n")}`);
  }
  return notices;
}

export const autoLint: Strategy = { setting: "auto_lint", afterBatch: autoLintNotices };
