export type CompletionOutcome = { outcome: "rejected"; rejections: number; remaining: number } | { outcome: "unverified"; rejections: number };

/**
 * How many evidence-less completion attempts are rejected before the run ends `unverified`
 * (default 2: the third unbacked attempt ends the run with an explicit incomplete result).
 */
export class CompletionBudget {
  private count = 0;

  constructor(private readonly allowedRejections = 2) {}

  get rejections(): number {
    return this.count;
  }

  get remaining(): number {
    return Math.max(0, this.allowedRejections - this.count);
  }

  get exhausted(): boolean {
    return this.count >= this.allowedRejections;
  }

  /** Call on each completion attempt that lacks evidence. */
  reject(): CompletionOutcome {
    if (this.count >= this.allowedRejections) return { outcome: "unverified", rejections: this.count };
    this.count += 1;
    return { outcome: "rejected", rejections: this.count, remaining: this.remaining };
  }
}
