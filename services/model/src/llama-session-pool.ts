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

  constructor(private readonly source: SequenceSource<Q>) {}

  /** Runs `work` with the session's sequence, creating (or evicting for) it as needed. */
  async use<T>(id: string, work: (sequence: Q, fresh: boolean) => Promise<T>): Promise<T> {
    let session = this.sessions.get(id);
    const fresh = session === undefined;
    if (!session) session = this.create(id);
    const previous = session.tail;
    let release!: () => void;
    session.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const current = this.sessions.get(id) === session ? session : undefined;
    try {
      const active = current ?? this.create(id);
      active.busy = true;
      active.lastUsed = ++this.clock;
      try {
        return await work(active.sequence, fresh || current === undefined);
      } finally {
        active.busy = false;
        active.lastUsed = ++this.clock;
      }
    } finally {
      release();
    }
  }

  private create(id: string): PooledSession<Q> {
    if (this.source.sequencesLeft <= 0) this.evictOne();
    const session: PooledSession<Q> = { id, sequence: this.source.getSequence(), lastUsed: ++this.clock, busy: false, tail: Promise.resolve() };
    this.sessions.set(id, session);
    return session;
  }

  private evictOne(): void {
    let victim: PooledSession<Q> | undefined;
    for (const session of this.sessions.values()) {
      if (session.busy) continue;
      if (!victim || session.lastUsed < victim.lastUsed) victim = session;
    }
    if (!victim) throw aideError("BUSY", { detail: `all ${this.sessions.size} model sessions are generating` });
    this.sessions.delete(victim.id);
    void Promise.resolve(victim.sequence.dispose()).catch(() => undefined);
  }

  /** Drops a session's warm cache (e.g. when the orchestrator ends the session). */
  drop(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session || session.busy) return false;
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
