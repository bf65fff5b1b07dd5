export interface RateLimiterOptions {
  /** Requests allowed per window and key. */
  max: number;
  windowMs: number;
  now?: () => number;
}

/**
 * A fixed-window counter keyed by the caller's credential (every local client shares 127.0.0.1,
 * so an address key would throttle everyone together).
 */
export function createRateLimiter(options: RateLimiterOptions) {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /** Seconds to wait, or 0 when the request may proceed. */
    take(key: string): number {
      const at = now();
      let window = windows.get(key);
      if (!window || at - window.start >= options.windowMs) {
        if (windows.size > 10_000) windows.clear();
        window = { start: at, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count <= options.max) return 0;
      return Math.max(1, Math.ceil((window.start + options.windowMs - at) / 1000));
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
