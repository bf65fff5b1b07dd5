/**
 * A reader that goes away early (`aide doctor | head -1`) closes the pipe: the next write fails
 * with EPIPE. That is the reader's choice, not an error of ours: the process runs its registered
 * cleanups (a stack `aide run` started for itself is stopped) and exits 0 without a word, since
 * stdout is gone and stderr may be the same pipe.
 */
const cleanups = new Set<() => Promise<void> | void>();
let closing = false;

/** Runs when stdout or stderr turns out to be a closed pipe; must not throw. */
export function onBrokenPipe(cleanup: () => Promise<void> | void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

export function guardPipes(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      if (closing) return;
      closing = true;
      // The streams are unusable: later writes must not raise again.
      for (const other of streams) other.write = (() => true) as typeof other.write;
      const pending = [...cleanups].map(async (cleanup) => {
        try {
          await cleanup();
        } catch {
          // nothing can be reported any more
        }
      });
      void Promise.all(pending).finally(() => process.exit(0));
    });
  }
}
