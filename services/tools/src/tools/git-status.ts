import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { runNeutralizedGit } from "./git-neutralized.js";
import { gitOutcome } from "./git-outcome.js";

export const gitStatusTool = defineTool({
  name: "git_status",
  description: "Show the git branch and the changed, staged and untracked files of the workspace repository (read-only).",
  parameters: z.strictObject({}),
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  maxOutputChars: 60_000,
  timeoutMs: 60_000,
  async execute(_args, context) {
    const result = await runNeutralizedGit(context, ["status", "--short", "--branch", "--untracked-files=normal", "--no-renames"]);
    return gitOutcome(result, "Nothing to report: the working tree is clean.");
  },
});
