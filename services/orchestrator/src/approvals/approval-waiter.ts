export type DecisionKind = "approve" | "reject" | "abort" | "timeout";

export interface DecisionOutcome {
  decision: DecisionKind;
  feedback?: string;
  consentNetwork?: boolean;
  confirmProtected?: boolean;
  /** For an approval that says no checkpoint could be taken. */
  checkpoint?: "retry" | "proceed_without";
  /** For an instructions approval: the person's answer (`never` is remembered). */
  instructionsAnswer?: "trust" | "not_this_time" | "never";
  /** Approved in the approval's other form (a package install without its lifecycle scripts). */
  alternative?: "ignore_scripts";
  /** Who settled it: a person's decision, the timeout, or the end of the run. */
  source?: "person" | "timeout" | "run_end" | "policy";
}

interface Waiting {
  resolve(outcome: DecisionOutcome): void;
  timer: NodeJS.Timeout;
}

/**
 * The in-process side of pending approvals: one deferred per approval id, resolved by a decision,
 * by its timeout (default-deny) or by `cancelAll` when the run ends. Each resolves exactly once;
 * a second decision for the same id finds nothing.
 */
export class ApprovalWaiter {
  private readonly waiting = new Map<string, Waiting>();
  constructor(private readonly now: () => Date) {}

  /**
   * Registers the deferred at once (so a decision that arrives before the caller awaits still
   * lands); an aborted `signal` answers "abort".
   */
  wait(id: string, expiresAt: string, signal?: AbortSignal): Promise<DecisionOutcome> {
    const existing = this.waiting.get(id);
    if (existing) existing.resolve({ decision: "abort", feedback: "superseded", source: "run_end" });
    const promise = new Promise<DecisionOutcome>((resolve) => {
      const delay = Math.max(0, Date.parse(expiresAt) - this.now().getTime());
      const timer = setTimeout(() => this.settle(id, { decision: "timeout", source: "timeout" }), Math.min(delay, 2_147_483_000));
      this.waiting.set(id, { resolve, timer });
    });
    if (signal?.aborted) this.settle(id, { decision: "abort", feedback: String(signal.reason ?? "aborted"), source: "run_end" });
    else signal?.addEventListener("abort", () => this.settle(id, { decision: "abort", feedback: String(signal.reason ?? "aborted"), source: "run_end" }), { once: true });
    return promise;
  }

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Returns false when nothing waits under this id (already decided, timed out, or unknown). */
  settle(id: string, outcome: DecisionOutcome): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    this.waiting.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(outcome);
    return true;
  }

  cancelAll(outcome: DecisionOutcome): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, outcome);
  }

  size(): number {
    return this.waiting.size;
  }
}
