/** How a neutralized git run becomes a tool outcome. */
export const refPattern = /^(?!-)[A-Za-z0-9._/~^@{}-]{1,200}$/;

export function gitOutcome(result: { exitCode: number | null; stdout: string; timedOut: boolean; truncated: boolean }, empty: string) {
  const isError = result.timedOut || result.exitCode !== 0;
  const text = result.stdout.trim() === "" ? empty : result.stdout;
  const output = !isError
    ? text
    : /not a git repository/i.test(text)
      ? "The workspace is not a git repository."
      : /lies outside the workspace/.test(text)
        ? "The workspace's .git points at a git directory outside the workspace; git_status and git_diff only read the workspace's own repository."
        : text;
  return { isError, output, metadata: { exit_code: result.exitCode, timed_out: result.timedOut, truncated: result.truncated } };
}
