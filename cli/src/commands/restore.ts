import { renderForScreen, type RestoreMode } from "@aide/contracts";
import { createLinePrompt } from "../client/line-prompt.js";
import { reportError, requireStack } from "../client/require-stack.js";

/**
 * `aide restore <session>` lists the checkpoint timeline; with a checkpoint it shows the plan
 * (files modified, created and deleted since) and applies it after a confirmation (or --yes).
 */
export async function run(session: string, checkpointArg: string | undefined, options: { mode: RestoreMode; yes?: boolean; force?: boolean }): Promise<number> {
  const mode = { data: options.mode };
  const client = requireStack();
  if (!client) return 1;
  try {
    const { checkpoints } = await client.checkpoints(session);
    if (!checkpointArg) {
      if (checkpoints.length === 0) process.stdout.write("no checkpoints\n");
      for (const c of checkpoints) process.stdout.write(`${c.id}  ${c.created_at.slice(0, 19)}  ${String(c.files_changed).padStart(3)} files  ${renderForScreen(c.label)}\n`);
      return 0;
    }
    const matches = checkpoints.filter((c) => c.id.startsWith(checkpointArg));
    if (matches.length !== 1) {
      process.stderr.write(`aide: ${matches.length === 0 ? "no checkpoint" : "more than one checkpoint"} matches ${renderForScreen(checkpointArg)}\n`);
      return 1;
    }
    const checkpoint = matches[0].id;
    const force = Boolean(options.force);
    const preview = await client.restore({ session, checkpoint, mode: mode.data, confirm: false, force });
    const { modified, created_since, deleted_since } = preview.plan;
    process.stdout.write(`restore ${checkpoint.slice(0, 10)} (${mode.data}):\n`);
    for (const [label, list] of [
      ["modified", modified],
      ["removed (created since)", created_since],
      ["brought back (deleted since)", deleted_since],
    ] as const) {
      process.stdout.write(`  ${label}: ${list.length === 0 ? "none" : list.map(renderForScreen).join(", ")}\n`);
    }
    if (!options.yes) {
      if (!process.stdin.isTTY) {
        process.stderr.write("aide: no terminal to confirm at; pass --yes to apply\n");
        return 2;
      }
      const prompt = createLinePrompt(process.stdin, process.stdout);
      const answer = await prompt.ask("apply this restore? [y/N] ");
      prompt.close();
      if (!answer.toLowerCase().startsWith("y")) {
        process.stdout.write("not restored\n");
        return 1;
      }
    }
    const applied = await client.restore({ session, checkpoint, mode: mode.data, confirm: true, force });
    process.stdout.write(`restored: applied=${applied.applied}, ${applied.truncated_messages} transcript messages dropped\n`);
    return applied.applied ? 0 : 1;
  } catch (error) {
    return reportError(error);
  }
}
