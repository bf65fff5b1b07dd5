import { countEscapeTokens, jsonForScreen, renderForScreen } from "@aide/contracts";
import { reportError, requireStack } from "../client/require-stack.js";

/** `aide sessions [--limit N] [--json]`: the sessions, newest first. */
export async function run(options: { limit?: string; json?: boolean }): Promise<number> {
  const limit = Number(options.limit ?? 50);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`aide sessions: --limit is a whole number from 1, not ${options.limit}\n`);
    return 2;
  }
  const client = requireStack();
  if (!client) return 1;
  try {
    const { sessions } = await client.sessions(limit);
    if (options.json) {
      process.stdout.write(jsonForScreen(JSON.stringify(sessions, null, 2)) + "\n");
      return 0;
    }
    if (sessions.length === 0) {
      process.stdout.write("no sessions\n");
      return 0;
    }
    // A task is untrusted text (any client may start one): shown rendered, marked when it hides characters.
    const taskCell = (task: string) => {
      const shown = renderForScreen(task)
        .replace(/[ \t\n\r\f\v]+/g, " ")
        .slice(0, 60);
      return countEscapeTokens(renderForScreen(task)) > 0 ? `⚠ ${shown}` : shown;
    };
    const rows = sessions.map((s) => [s.id, s.state, s.mode, String(s.approvals_pending.length), s.updated_at.slice(0, 19), taskCell(s.task)].map(renderForScreen));
    const header = ["SESSION", "STATE", "MODE", "PENDING", "UPDATED", "TASK"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const row of [header, ...rows])
      process.stdout.write(
        row
          .map((cell, i) => cell.padEnd(widths[i]))
          .join("  ")
          .trimEnd() + "\n",
      );
    return 0;
  } catch (error) {
    return reportError(error);
  }
}
