import { mkdir, open, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import { z } from "zod";
import { ToolResultSchema } from "@aide/contracts";

/** One line of the journal: a mutation was started, or finished with its result. */
export const JournalEntrySchema = z.object({
  key: z.string(),
  fingerprint: z.string(),
  state: z.enum(["started", "done"]),
  result: ToolResultSchema.optional(),
});
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

export interface CallJournal {
  /** The latest entry per key, oldest first, at most `maxEntries`. */
  entries: JournalEntry[];
  /** Appends durably (fsync) before resolving; entries are written in call order. Must not throw. */
  append(entry: JournalEntry): Promise<boolean>;
  /** The errno code of the last append that failed (ENOSPC: the state directory's disk is full). */
  lastFailure(): string | undefined;
  close(): Promise<void>;
}

const fileName = "calls.jsonl";

/**
 * The mutations' call journal under the tools service's state directory: an append-only JSON
 * lines file, compacted at start to the newest `maxEntries` keys (written aside, then renamed).
 * A torn or invalid line (a crash mid-write) is skipped.
 */
export async function openCallJournal(directory: string, maxEntries: number, logger: Logger): Promise<CallJournal> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, fileName);
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  const latest = new Map<string, JournalEntry>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry = JournalEntrySchema.parse(JSON.parse(line));
      latest.delete(entry.key);
      latest.set(entry.key, entry);
    } catch {
      logger.warn("skipped an unreadable line of the call journal");
    }
  }
  const entries = [...latest.values()].slice(-maxEntries);
  const compacted = `${path}.compact`;
  const rewrite = await open(compacted, "w", 0o600);
  await rewrite.writeFile(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
  await rewrite.sync();
  await rewrite.close();
  await rename(compacted, path);
  let handle: FileHandle | undefined = await open(path, "a", 0o600);
  let written = entries.length;
  let failure: string | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const append = (entry: JournalEntry): Promise<boolean> => {
    const step = chain.then(async () => {
      if (handle === undefined) return false;
      try {
        await handle.write(`${JSON.stringify(entry)}\n`);
        await handle.datasync();
        written += 1;
        failure = undefined;
        return true;
      } catch (error) {
        failure = String((error as NodeJS.ErrnoException).code ?? "EIO");
        logger.error({ err: (error as Error).message }, "could not append to the call journal");
        return false;
      }
    });
    chain = step;
    return step;
  };
  return {
    entries,
    append,
    lastFailure: () => failure,
    async close() {
      await chain;
      await handle?.close();
      handle = undefined;
      if (written > maxEntries * 4) logger.info({ written }, "call journal is compacted at the next start");
    },
  };
}
