/**
 * Generations in flight by request id, so agent.model.abort can stop one. An abort that arrives
 * before its chat (the two travel on different subjects) is remembered briefly and applied when
 * the chat starts.
 */
export class InFlight {
  private readonly running = new Map<string, AbortController>();
  private readonly early = new Map<string, number>();

  constructor(
    private readonly earlyAbortTtlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  start(requestId: string): AbortController {
    const controller = new AbortController();
    this.running.get(requestId)?.abort();
    this.running.set(requestId, controller);
    const abortedAt = this.early.get(requestId);
    if (abortedAt !== undefined) {
      this.early.delete(requestId);
      if (this.now() - abortedAt <= this.earlyAbortTtlMs) controller.abort();
    }
    return controller;
  }

  finish(requestId: string, controller: AbortController): void {
    if (this.running.get(requestId) === controller) this.running.delete(requestId);
  }

  /** Returns whether a generation was running. */
  abort(requestId: string): boolean {
    const controller = this.running.get(requestId);
    if (controller) {
      controller.abort();
      return true;
    }
    this.prune();
    this.early.set(requestId, this.now());
    return false;
  }

  size(): number {
    return this.running.size;
  }

  abortAll(): void {
    for (const controller of this.running.values()) controller.abort();
  }

  private prune(): void {
    const cutoff = this.now() - this.earlyAbortTtlMs;
    for (const [id, at] of this.early) if (at < cutoff) this.early.delete(id);
    while (this.early.size > 1000) this.early.delete(this.early.keys().next().value as string);
  }
}
