import { resolve } from "node:path";
import { jsonForScreen, renderForScreen } from "@aide/contracts";
import { reportError, requireStack } from "../client/require-stack.js";

const stateLabels: Record<string, string> = {
  trusted: "trusted",
  never: "never",
  undecided: "not decided",
  changed: "changed since decided",
};

/** `aide instructions [--workspace DIR] [--folder DIR]… [--json]`: what applies, and your decision on each. */
export async function list(options: { workspace?: string; folder?: string[]; json?: boolean }): Promise<number> {
  const client = requireStack();
  if (!client) return 1;
  const workspace = resolve(options.workspace ?? process.cwd());
  try {
    const listed = await client.instructions(workspace, options.folder ?? []);
    if (options.json) {
      process.stdout.write(jsonForScreen(JSON.stringify(listed, null, 2)) + "\n");
      return 0;
    }
    if (listed.files.length === 0) {
      process.stdout.write(`no project instructions in ${renderForScreen(workspace)} (looked for AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, .cursorrules, CONVENTIONS.md)\n`);
      return 0;
    }
    const rows = listed.files.map((file) =>
      [file.path, stateLabels[file.state] ?? file.state, `${file.tokens} tokens`, file.digest.slice(0, 12), file.decided_at?.slice(0, 19) ?? ""].map(renderForScreen),
    );
    const header = ["PATH", "STATE", "SIZE", "SHA256", "DECIDED"];
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

/** `aide instructions forget PATH [--workspace DIR]`: the next run asks about it again. */
export async function forget(path: string, options: { workspace?: string }): Promise<number> {
  const client = requireStack();
  if (!client) return 1;
  const workspace = resolve(options.workspace ?? process.cwd());
  try {
    const result = await client.forgetInstructions(workspace, path);
    process.stdout.write(
      result.forgotten
        ? `forgot your decision on ${renderForScreen(result.path)}: the next run asks again\n`
        : `no decision stored for ${renderForScreen(result.path)} in ${renderForScreen(workspace)}\n`,
    );
    return 0;
  } catch (error) {
    return reportError(error);
  }
}
