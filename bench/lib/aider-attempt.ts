/**
 * One aider attempt as its users run it without a terminal: `aider --yes-always --message TASK
 * FILES…` on the model behind an OpenAI-compatible endpoint (`openai/<name>`, `--openai-api-base`),
 * no git (every file of the project is in the chat, so the repository map has nothing to add, and
 * no commit is made), aider's own choices for an unknown model otherwise (its edit format, lint
 * and reflection). Its chat history is kept outside the workspace. It claims a fix when it
 * applied an edit ("Applied edit to …"); its answer to a question is its last reply.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { runProcessGroup } from "./process-group.js";
import { endedBy, type PeerAttemptInput, type PeerAttemptOutput } from "./peer-attempt.js";
import { sandboxArgs, sandboxEnv } from "./peer-sandbox.js";

/**
 * The files a person adds to aider's chat for a task on a project this small: every text file
 * of the project (not dotfiles, not over 64 KB, not binary), by relative path.
 */
export function filesToAdd(workspace: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith(".")) continue;
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile() && stat.size <= 65_536 && !readFileSync(path).includes(0)) found.push(relative(workspace, path));
    }
  };
  walk(workspace);
  return found;
}

/** aider's last reply in its chat history file: the lines after the last `#### ` (the message sent), without its `>` notes. */
export function lastReply(history: string): string {
  const lines = history.split("\n");
  const start = lines.findLastIndex((line) => line.startsWith("#### "));
  return lines
    .slice(start + 1)
    .filter((line) => !line.startsWith(">"))
    .join("\n")
    .trim();
}

export async function runAiderAttempt(input: PeerAttemptInput): Promise<PeerAttemptOutput> {
  const history = join(input.sandbox.home, "aider-chat.md");
  const command = [
    input.command,
    "--model",
    `openai/${input.alias}`,
    "--openai-api-base",
    input.apiBase,
    "--openai-api-key",
    "local",
    "--yes-always",
    "--no-git",
    "--no-auto-commits",
    "--no-gitignore",
    "--no-pretty",
    "--no-fancy-input",
    "--no-stream",
    "--no-check-update",
    "--no-show-release-notes",
    "--no-analytics",
    "--no-show-model-warnings",
    "--no-detect-urls",
    "--no-notifications",
    "--disable-playwright",
    "--chat-history-file",
    history,
    "--input-history-file",
    join(input.sandbox.home, "aider-input.txt"),
    "--llm-history-file",
    join(input.sandbox.home, "aider-llm.txt"),
    "--timeout",
    String(Math.ceil(input.budgetMs / 1000)),
    "--message",
    input.prompt,
    ...filesToAdd(input.sandbox.workspace),
  ];
  const run = await runProcessGroup("bwrap", sandboxArgs(input.sandbox, command), {
    env: sandboxEnv(input.sandbox, {}),
    timeoutMs: input.budgetMs,
    signal: input.signal,
    logFile: input.logFile,
  });
  const output = existsSync(input.logFile) ? readFileSync(input.logFile, "utf8") : run.tail;
  const answer = existsSync(history) ? lastReply(readFileSync(history, "utf8")) : "";
  const edited = /^Applied edit to /m.test(output);
  const claimed = input.category === "question" ? answer !== "" : edited;
  const outcome = endedBy(run) ?? (run.code !== 0 ? `exit-${run.code ?? run.killedBy}` : edited ? "edited" : "no-edit");
  return { outcome, claimed, answer, run };
}
