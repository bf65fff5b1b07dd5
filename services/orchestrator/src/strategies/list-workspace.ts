import type { RunContext } from "../run/run-context.js";

/**
 * The workspace's entries before the first turn: the tools service's list_dir, recursive, up to
 * `maxEntries` (folders end with `/`), with no event (it is the prompt's own input, like the code
 * map). `capped`: the listing stopped at the limit. Undefined on any failure, logged with `purpose`;
 * the run goes on without it.
 */
export async function listWorkspace(context: RunContext, maxEntries: number, purpose: string): Promise<{ entries: string[]; capped: boolean } | undefined> {
  const record = context.session.record;
  try {
    const result = await context.seams.tools.exec(
      record.id,
      record.workspace,
      { id: context.seams.generateId(), name: "list_dir", arguments: { path: ".", recursive: true, max_entries: maxEntries } },
      { network: false },
    );
    if (result.is_error === true) return undefined;
    const [listing, note] = result.output.split("\n\n");
    return { entries: (listing ?? "").split("\n").filter((entry) => entry !== ""), capped: note !== undefined };
  } catch (error) {
    context.logger.warn({ err: error }, `listing the workspace for ${purpose} failed; the run goes on without it`);
    return undefined;
  }
}
