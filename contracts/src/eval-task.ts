/**
 * A task of `aide eval` (eval/tasks/<id>/task.json): what a person would type, and how its
 * outcome is judged afterwards by a check the agent never sees. A task either ships its project
 * (eval/tasks/<id>/project, with the hidden check in check/ and a reference solution in solution/)
 * or points to an external repository at a commit (users' own suites; fetched by the runner only
 * when asked, never in tests).
 */
import { z } from "zod";

export const EvalLanguageSchema = z.enum(["javascript", "typescript", "python", "shell", "go", "rust", "java"]);
export const EvalCategorySchema = z.enum(["bug", "feature", "refactor", "failing-test", "question"]);
export const EvalDifficultySchema = z.enum(["easy", "medium", "hard"]);

/** The hidden check: a command run in a fresh copy of the project after the session, its exit code the verdict. */
export const EvalCheckSchema = z
  .object({
    /** argv, run in the project copy with the task's check/ files under `.eval-check/`. */
    command: z.array(z.string().min(1)).min(1),
    timeout_ms: z.number().int().positive().max(600_000).default(30_000),
  })
  .strict();

export const EvalExternalSourceSchema = z
  .object({
    repository: z.string().url(),
    commit: z.string().regex(/^[0-9a-f]{40}$/, "a full 40-hex commit id"),
    /** A patch applied after checkout (path relative to the task folder). */
    patch: z.string().min(1).optional(),
    /** The command that judges the outcome (like check.command, run in the checkout). */
    test_command: z.array(z.string().min(1)).min(1),
  })
  .strict();

export const EvalTaskSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/, "lowercase letters, digits and '-', 3 to 64 characters"),
    language: EvalLanguageSchema,
    category: EvalCategorySchema,
    difficulty: EvalDifficultySchema,
    /** The task as a person would type it. */
    prompt: z.string().min(10).max(4_000),
    check: EvalCheckSchema.optional(),
    /** For questions: the facts a right answer names (the check enforces them; shown in reports). */
    expected_answer: z.array(z.string().min(1)).optional(),
    source: EvalExternalSourceSchema.optional(),
  })
  .strict()
  .superRefine((task, context) => {
    if (task.source === undefined && task.check === undefined) context.addIssue({ code: "custom", path: ["check"], message: "a task with its own project needs a check" });
    if (task.category === "question" && (task.expected_answer?.length ?? 0) === 0) context.addIssue({ code: "custom", path: ["expected_answer"], message: "a question names its expected answer" });
  });

export type EvalTask = z.infer<typeof EvalTaskSchema>;

/** Where a session's final answer is written in the project copy before a question's check runs. */
export const evalAnswerFile = ".eval-answer.txt";
/** Where the hidden check's files are copied in the project copy. */
export const evalCheckFolder = ".eval-check";
