/** The suite's tasks from `eval/tasks/<id>/task.json`, validated (an invalid task file names its field). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EvalTaskSchema, type EvalTask } from "@aide/contracts";

export class EvalTaskError extends Error {}

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
}

/**
 * The tasks matching the selection (ids or globs like `js-*`; all when empty), in id order. A task
 * that points to an external repository is refused unless `fetch` says the person asked for it.
 */
export function loadEvalTasks(tasksDir: string, select: readonly string[], options: { fetch?: boolean } = {}): EvalTask[] {
  if (!existsSync(tasksDir)) throw new EvalTaskError(`no task folder at ${tasksDir}`);
  const patterns = select.map(globToRegExp);
  const tasks: EvalTask[] = [];
  for (const id of readdirSync(tasksDir).sort()) {
    if (patterns.length > 0 && !patterns.some((pattern) => pattern.test(id))) continue;
    const file = join(tasksDir, id, "task.json");
    if (!existsSync(file)) continue;
    const parsed = EvalTaskSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) throw new EvalTaskError(`${file}: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(task)"}: ${issue.message}`).join("; ")}`);
    if (parsed.data.source !== undefined && options.fetch !== true) throw new EvalTaskError(`${file}: this task clones ${parsed.data.source.repository}; run it with aide eval run --fetch`);
    tasks.push(parsed.data);
  }
  if (tasks.length === 0) throw new EvalTaskError(`no task matches ${select.join(", ") || "(all)"} in ${tasksDir}`);
  return tasks;
}
