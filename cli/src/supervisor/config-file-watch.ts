import { existsSync, readFileSync, unwatchFile, watchFile } from "node:fs";

/**
 * Calls `onChange` (one call at a time, in order) whenever the file's identity or content changes:
 * an editor's atomic rename, an in-place write, its removal. Polling, because the file may be
 * replaced (a new inode) where an inotify watch would go on watching the old one. Returns the stop.
 */
export function watchConfigFile(file: string, onChange: () => Promise<void>, pollMs = 1000): () => void {
  let chain: Promise<void> = Promise.resolve();
  watchFile(file, { interval: pollMs, persistent: false }, (current, previous) => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size && current.ino === previous.ino) return;
    chain = chain.then(onChange).catch(() => undefined);
  });
  return () => unwatchFile(file);
}

/** The file's JSON (null when it is absent), or the parse error's message. */
export function readJsonDocument(file: string): { document: unknown } | { error: string } {
  if (!existsSync(file)) return { document: null };
  try {
    return { document: JSON.parse(readFileSync(file, "utf8")) as unknown };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
