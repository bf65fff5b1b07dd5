import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { booleanArg, pathArg } from "../framework/argument-types.js";
import { runNeutralizedGit } from "./git-neutralized.js";
import { gitOutcome, refPattern } from "./git-outcome.js";

export const gitDiffTool = defineTool({
  name: "git_diff",
  description: "Show the uncommitted changes of the workspace repository as a diff (read-only); `staged` for the index, `ref` to compare with a commit, `path` to limit it.",
  parameters: z.strictObject({
    path: pathArg().optional().describe("Limit the diff to this file or directory"),
    staged: booleanArg().default(false).describe("Show staged changes instead of unstaged ones"),
    ref: z.string().regex(refPattern, "must be a branch, tag or commit name").optional().describe("Compare the working tree with this commit, branch or tag"),
  }),
  aliases: { cached: "staged", commit: "ref" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  maxOutputChars: 60_000,
  timeoutMs: 60_000,
  async execute(args, context) {
    const pathspec: string[] = [];
    if (args.path !== undefined) {
      const target = await context.workspace.resolve(args.path);
      pathspec.push("--", target.relative === "." ? ":/" : `:(top,literal)${target.relative}`);
    }
    const diffArgs = ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--stat", "--patch"];
    if (args.staged) diffArgs.push("--cached");
    if (args.ref !== undefined) diffArgs.push(args.ref);
    const result = await runNeutralizedGit(context, [...diffArgs, ...pathspec]);
    return gitOutcome(result, "No differences.");
  },
});
