import type { AttemptRecord } from "./attempt-record.js";

/** A cell of the eval's grid: one task, one model, one arm (absent: the defaults). */
const cellKey = (task: string, model: string, arm: string | undefined) => JSON.stringify([task, model, arm ?? null]);

/**
 * `aide eval run --fill RUN…` (and the bench's BENCH_FILL): what each cell still lacks to reach
 * `target` attempts, given the attempts the earlier runs hold. Every recorded attempt counts, an
 * errored one too (it is in their report); the new attempts take the lowest repeat numbers the
 * cell has not used, so the report pairs them with other arms' attempts of the same task and
 * repeat (McNemar) and none shadows an earlier one. A cell is matched by its arm's name, not its
 * settings: an arm renamed in results.jsonl is another arm.
 */
export function repeatsToFill(existing: readonly Pick<AttemptRecord, "task" | "model" | "arm" | "repeat">[], target: number): (task: string, model: string, arm: string | undefined) => number[] {
  const used = new Map<string, { count: number; numbers: Set<number> }>();
  for (const record of existing) {
    const key = cellKey(record.task, record.model, record.arm);
    const cell = used.get(key) ?? { count: 0, numbers: new Set<number>() };
    cell.count += 1;
    cell.numbers.add(record.repeat);
    used.set(key, cell);
  }
  return (task, model, arm) => {
    const cell = used.get(cellKey(task, model, arm)) ?? { count: 0, numbers: new Set<number>() };
    const repeats: number[] = [];
    for (let repeat = 0; repeats.length < target - cell.count; repeat += 1) if (!cell.numbers.has(repeat)) repeats.push(repeat);
    return repeats;
  };
}

/**
 * The runner's `repeatsFor` (runEval) from the earlier runs' attempts, and how many attempts it
 * asks for over a grid of tasks, models and arms (no arms: the defaults, as runEval has it), so a
 * caller can say there is nothing to run before starting a stack.
 */
export function fillPlan(existing: readonly Pick<AttemptRecord, "task" | "model" | "arm" | "repeat">[], target: number) {
  const toFill = repeatsToFill(existing, target);
  const repeatsFor = (task: { id: string }, model: string, arm: { name: string } | undefined): number[] => toFill(task.id, model, arm?.name);
  const attempts = (tasks: readonly { id: string }[], models: readonly string[], arms: readonly { name: string }[]): number => {
    const cells = arms.length > 0 ? arms : [undefined];
    return tasks.reduce((sum, task) => sum + models.reduce((inner, model) => inner + cells.reduce((count, arm) => count + repeatsFor(task, model, arm).length, 0), 0), 0);
  };
  return { repeatsFor, attempts };
}
