/**
 * Remembers which restores were previewed, so a confirm without a preview of the same checkpoint
 * (within `ttlMs`) is refused: a person sees the plan before files change.
 */
export function createRestorePreviews(options: { ttlMs?: number; now?: () => number } = {}) {
  const ttlMs = options.ttlMs ?? 15 * 60_000;
  const now = options.now ?? Date.now;
  const previews = new Map<string, number>();
  const key = (session: string, checkpoint: string) => `${session}:${checkpoint}`;
  return {
    remember(session: string, checkpoint: string): void {
      if (previews.size > 1000) previews.clear();
      previews.set(key(session, checkpoint), now());
    },
    /** True (and forgotten) when the restore was previewed recently. */
    consume(session: string, checkpoint: string): boolean {
      const at = previews.get(key(session, checkpoint));
      previews.delete(key(session, checkpoint));
      return at !== undefined && now() - at <= ttlMs;
    },
  };
}
export type RestorePreviews = ReturnType<typeof createRestorePreviews>;
