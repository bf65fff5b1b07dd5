/** How a neutralized git run becomes a tool outcome. */
export const refPattern = /^(?!-)[A-Za-z0-9._/~^@{}-]{1,200}$/;

export function gitOutcome(result: { exitCode: number | null; stdout: string; timedOut: boolean; truncated: boolean }, empty: string) {
  const isError = result.timedOut || result.exitCode !== 0;
  const text = result.stdout.trim() === "" ? empty : result.stdout;
  return { isError, output: isError && /not a git repository/i.test(text) ? "The workspace is not a git repository." : text, metadata: { exit_code: result.exitCode, timed_out: result.timedOut, truncated: result.truncated } };
}
