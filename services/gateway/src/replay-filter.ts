import type { WsFrame } from "@aide/contracts";

export interface StoredEvent {
  seq: number;
  type: string;
  payload?: { approval?: string } & Record<string, unknown>;
  [key: string]: unknown;
}

export interface ReplayFilterOptions {
  /** The last seq the client already has. */
  since: number;
  /**
   * Approval ids the orchestrator reports pending (from `agent.cmd.status`), or `"from_stream"`
   * when the orchestrator could not say: then every request the stream has not seen decided is
   * re-sent (a decided-elsewhere one is refused with APPROVAL_NOT_FOUND; a missing one would
   * leave the person unable to decide).
   */
  pending: Iterable<string> | "from_stream";
  /** The session's last seq when the client connected; the replay has caught up once it is reached. */
  lastSeq: number;
}

/**
 * Decides, event by event in stream order, what one WebSocket client receives: nothing at or
 * below `since` (it has those) except approvals still pending, which are sent again as
 * `approval.pending` before the first newer event; each newer event exactly once; `ready` once
 * the replay reaches the session's last seq. Pure, so the no-gap/no-duplicate rule is unit-tested.
 */
export function createReplayFilter(options: ReplayFilterOptions) {
  const fromStream = options.pending === "from_stream";
  const pending = new Set(options.pending === "from_stream" ? [] : options.pending);
  const held = new Map<string, StoredEvent>();
  let delivered = options.since;
  let scanned = 0;
  let flushed = false;
  let ready = false;

  function flush(): WsFrame[] {
    if (flushed) return [];
    flushed = true;
    return [...held.values()].map((event) => ({ type: "approval.pending" as const, event }));
  }
  function readyFrames(): WsFrame[] {
    if (ready) return [];
    ready = true;
    return [...flush(), { type: "ready", last_seq: delivered }];
  }

  return {
    /** Frames to send for the next stored or live event. */
    accept(event: StoredEvent): WsFrame[] {
      scanned = Math.max(scanned, event.seq);
      const frames: WsFrame[] = [];
      if (event.seq <= delivered) {
        if (!flushed && event.seq <= options.since) {
          const approval = event.payload?.approval;
          if (event.type === "approval.requested" && typeof approval === "string" && (fromStream || pending.has(approval))) held.set(approval, event);
          if (event.type === "approval.decided" && typeof approval === "string") held.delete(approval);
        }
      } else {
        frames.push(...flush(), { type: "event", event });
        delivered = event.seq;
      }
      if (!ready && scanned >= options.lastSeq) frames.push(...readyFrames());
      return frames;
    },
    /** The stream has nothing more for now: finish the replay. */
    caughtUp(): WsFrame[] {
      return readyFrames();
    },
    isReady: () => ready,
    lastDelivered: () => delivered,
  };
}
export type ReplayFilter = ReturnType<typeof createReplayFilter>;
