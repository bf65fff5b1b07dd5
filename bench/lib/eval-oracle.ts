/**
 * The scripted oracle of a task, built from its reference solution: read, write the solution's
 * files, read them back, complete (a question: read and answer). For an instructions task (its
 * project has an AGENTS.md and the task an `unguided/` solution) the oracle follows the
 * instructions only when they are in its prompt: the writing and answering steps are conditional
 * on the AGENTS.md's first rule (its first `- ` line, up to a `<`, `>` or `&`) appearing in some message of the request
 * (`when_prompt_contains` of the scripted provider), and otherwise write the unguided solution.
 * The oracle never reads the AGENTS.md itself, so the rule is in its prompt only when aide put it
 * there: an arm's difference comes from the prompt, not from the arm's name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EvalTask } from "@aide/contracts";

export function files(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

const call = (tool: string, params: Record<string, string>) =>
  `<${tool}>\n${Object.entries(params)
    .map(([k, v]) => `<${k}>${k === "content" ? `\n${v}` : v}</${k}>`)
    .join("\n")}\n</${tool}>`;

export interface OracleStep {
  text: string;
  when_prompt_contains?: string;
  otherwise?: { text: string };
}

/** The instructions a task's oracle follows when they are in its prompt: the first rule of its AGENTS.md; undefined for other tasks. */
export function instructionsRule(taskDir: string): string | undefined {
  const agents = join(taskDir, "project", "AGENTS.md");
  if (!existsSync(agents) || !existsSync(join(taskDir, "unguided"))) return undefined;
  const rule = readFileSync(agents, "utf8")
    .split("\n")
    .find((line) => line.startsWith("- "));
  // Up to its first '<', '>' or '&': aide shows the model instructions with tag-like text neutralized.
  const shown = rule?.slice(2).split(/[<>&]/)[0].trim();
  if (shown === undefined || shown.length < 20)
    throw new Error(`${agents}: an instructions task's AGENTS.md starts its first '- ' rule with 20 characters or more before any '<', '>' or '&' (what its oracle looks for in the prompt)`);
  return shown;
}

/** A step that gives `guided` when the rule is in the prompt and `unguided` otherwise (or `guided` alone without a rule). */
const step = (rule: string | undefined, guided: string, unguided: string): OracleStep =>
  rule === undefined || guided === unguided ? { text: guided } : { text: guided, when_prompt_contains: rule, otherwise: { text: unguided } };

/** The oracle's replies for one task, from its reference solution (and its unguided one). */
export function oracleReplies(tasksDir: string, task: EvalTask): OracleStep[] {
  const base = join(tasksDir, task.id);
  const rule = instructionsRule(base);
  // The oracle reads the project, never its instructions file: those reach it only through aide.
  const project = files(join(base, "project")).filter((path) => rule === undefined || path !== "AGENTS.md");
  const answer = (folder: string) => readFileSync(join(base, folder, ".eval-answer.txt"), "utf8").trim();
  if (task.category === "question") {
    return [
      {
        text: project
          .slice(0, 8)
          .map((path) => call("read_file", { path }))
          .join("\n"),
      },
      step(rule, call("attempt_completion", { result: answer("solution") }), rule === undefined ? "" : call("attempt_completion", { result: answer("unguided") })),
    ];
  }
  const solution = files(join(base, "solution"));
  const unguided = rule === undefined ? solution : files(join(base, "unguided"));
  const existing = [...new Set([...solution, ...unguided])].filter((path) => project.includes(path));
  const writes = (folder: string, paths: string[]) => paths.map((path) => call("write_file", { path, content: readFileSync(join(base, folder, path), "utf8") })).join("\n");
  const reads = (paths: string[]) => paths.map((path) => call("read_file", { path })).join("\n");
  return [
    { text: existing.length > 0 ? reads(existing) : call("list_dir", { path: "." }) },
    step(rule, writes("solution", solution), rule === undefined ? "" : writes("unguided", unguided)),
    step(rule, reads(solution), reads(unguided)),
    step(
      rule,
      call("attempt_completion", { result: `Changed ${solution.join(", ")} as asked and read the result back.` }),
      call("attempt_completion", { result: `Changed ${unguided.join(", ")} as asked and read the result back.` }),
    ),
  ];
}
