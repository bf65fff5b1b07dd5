import { aideError } from "@aide/contracts";

/** What the pool needs from a context: sequences to hand out (a seam for unit tests). */
export interface SequenceSource<Q extends { dispose(): unknown }> {
  readonly sequencesLeft: number;
  getSequence(): Q;
}

export interface PooledSession<Q> {
  id: string;
  sequence: Q;
  lastUsed: number;
  busy: boolean;
  /** Requests holding or waiting for the session; a session with users is never evicted. */
  users: number;
  /** Requests on the same session run one after another. */
  tail: Promise<void>;
}

/**
 * One warm context sequence per session on a loaded model. When every sequence is taken, the
 * least recently used idle session is evicted (its sequence disposed, its cache lost); if every
 * session is generating, the request is refused BUSY. Requests on one session are serialized, so
 * two turns never interleave on one sequence; different sessions run side by side on their own
 * sequences and cannot see each other's tokens.
 */
export class SessionPool<Q extends { dispose(): unknown }> {
  private readonly sessions = new Map<string, PooledSession<Q>>();
  private clock = 0;
  /** Creating and evicting are serialized: a disposed sequence's slot frees asynchronously. */
  private creating: Promise<unknown> = Promise.resolve();

  constructor(private readonly source: SequenceSource<Q>) {}

  /** Runs `work` with the session's sequence, creating (or evicting for) it as needed. */
  async use<T>(id: string, work: (sequence: Q) => Promise<T>): Promise<T> {
    let session = this.sessions.get(id);
    if (session) session.users++;
    else session = await this.create(id);
    // A session with users is never evicted, so it is still this session's after the wait.
    const previous = session.tail;
    let release!: () => void;
    session.tail = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      session.busy = true;
      session.lastUsed = ++this.clock;
      return await work(session.sequence);
    } finally {
      session.busy = false;
      session.users--;
      session.lastUsed = ++this.clock;
      release();
    }
  }

  /**
   * Runs `work` on a sequence of its own that is disposed after (a one-off request such as a
   * compaction summary), so no session's warm cache is overwritten. When every sequence is taken
   * the least recently used idle session other than `keep` (the requesting session) is evicted;
   * when there is none, the work runs on `keep`'s own sequence (its cache is then lost) and
   * `onFallback` says so.
   */
  async useOneOff<T>(keep: string, work: (sequence: Q) => Promise<T>, onFallback?: () => void): Promise<T> {
    const claimed = this.creating.then(async () => {
      if (this.source.sequencesLeft <= 0 && !(await this.evictOne(keep))) return undefined;
      return this.source.getSequence();
    });
    this.creating = claimed.catch(() => undefined);
    const sequence = await claimed;
    if (sequence === undefined) {
      onFallback?.();
      return this.use(keep, work);
    }
    try {
      return await work(sequence);
    } finally {
      // Disposing frees the slot asynchronously: the next creation waits for it.
      const disposed = Promise.resolve(sequence.dispose()).catch(() => undefined);
      this.creating = this.creating.then(() => disposed);
    }
  }

  /** The session with one user claimed (created, after evicting the LRU idle one if needed). */
  private create(id: string): Promise<PooledSession<Q>> {
    const created = this.creating.then(async () => {
      const existing = this.sessions.get(id);
      if (existing) {
        existing.users++;
        return existing;
      }
      if (this.source.sequencesLeft <= 0) await this.evictOne();
      const session: PooledSession<Q> = { id, sequence: this.source.getSequence(), lastUsed: ++this.clock, busy: false, users: 1, tail: Promise.resolve() };
      this.sessions.set(id, session);
      return session;
    });
    this.creating = created.catch(() => undefined);
    return created;
  }

  /** Evicts the LRU idle session (never `spare`); false when none is idle and `spare` is given. */
  private async evictOne(spare?: string): Promise<boolean> {
    let victim: PooledSession<Q> | undefined;
    for (const session of this.sessions.values()) {
      if (session.busy || session.users > 0 || session.id === spare) continue;
      if (!victim || session.lastUsed < victim.lastUsed) victim = session;
    }
    if (!victim && spare !== undefined) return false;
    if (!victim) throw aideError("BUSY", { detail: `all ${this.sessions.size} model sessions are generating` });
    this.sessions.delete(victim.id);
    await Promise.resolve(victim.sequence.dispose()).catch(() => undefined);
    return true;
  }

  /** Drops a session's warm cache (e.g. when the orchestrator ends the session). */
  drop(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session || session.busy || session.users > 0) return false;
    this.sessions.delete(id);
    void Promise.resolve(session.sequence.dispose()).catch(() => undefined);
    return true;
  }

  ids(): string[] {
    return [...this.sessions.keys()];
  }

  anyBusy(): boolean {
    return [...this.sessions.values()].some((session) => session.busy);
  }
}
