import type { z } from "zod";
import type { SessionSnapshot, SessionsRequestSchema } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";
import type { SessionRecord } from "../session/session-record.js";
import { sessionSnapshot } from "./session-snapshot.js";

type SessionsRequest = z.infer<typeof SessionsRequestSchema>;

function matches(snapshot: SessionSnapshot, request: SessionsRequest): boolean {
  if (request.user !== undefined && snapshot.user !== request.user) return false;
  if (request.state !== undefined && snapshot.state !== request.state) return false;
  if (request.workspace !== undefined && snapshot.workspace !== request.workspace) return false;
  if (request.query !== undefined) {
    const needle = request.query.toLowerCase();
    const haystack = [snapshot.id, snapshot.task, snapshot.workspace, snapshot.result ?? ""];
    if (!haystack.some((text) => text.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** Snapshots of stored records this instance read, by session, with the revision they were read at. */
type SnapshotCache = Map<string, { revision: number; snapshot: SessionSnapshot }>;
const caches = new WeakMap<Orchestrator, SnapshotCache>();
/** How many changed records one listing reads at once. */
const readsAtOnce = 16;

/**
 * Every stored session's snapshot, reading only the records whose revision changed since this
 * instance last read them (the store tells revisions from message headers alone): a listing
 * costs what changed, not every stored record, each of which can hold a long transcript. A
 * session this instance runs is shown as it holds it.
 */
async function allSnapshots(orchestrator: Orchestrator): Promise<SessionSnapshot[]> {
  const store = orchestrator.seams.store;
  const live = (id: string): SessionRecord | undefined => orchestrator.sessions.get(id)?.record;
  if (!store.revisions) return (await store.list()).map((record) => sessionSnapshot(live(record.id) ?? record));
  const revisions = await store.revisions();
  let cache = caches.get(orchestrator);
  if (!cache) caches.set(orchestrator, (cache = new Map()));
  for (const id of cache.keys()) if (!revisions.has(id)) cache.delete(id);
  const stale = [...revisions].filter(([id, revision]) => live(id) === undefined && cache.get(id)?.revision !== revision);
  for (let start = 0; start < stale.length; start += readsAtOnce) {
    await Promise.all(
      stale.slice(start, start + readsAtOnce).map(async ([id, revision]) => {
        const record = await store.get(id).catch(() => undefined);
        if (record) cache.set(id, { revision, snapshot: sessionSnapshot(record) });
        else cache.delete(id);
      }),
    );
  }
  const snapshots: SessionSnapshot[] = [];
  for (const id of revisions.keys()) {
    const held = live(id);
    const snapshot = held ? sessionSnapshot(held) : cache.get(id)?.snapshot;
    if (snapshot) snapshots.push(snapshot);
  }
  return snapshots;
}

/**
 * `agent.cmd.sessions`: the stored sessions (a live one as this instance holds it), filtered,
 * newest first (by the last change), one page of them, and how many match in all.
 */
export async function listSessions(orchestrator: Orchestrator, request: SessionsRequest): Promise<{ sessions: SessionSnapshot[]; total: number }> {
  const matching = (await allSnapshots(orchestrator))
    .filter((snapshot) => matches(snapshot, request))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.created_at.localeCompare(a.created_at));
  return { sessions: matching.slice(request.offset, request.offset + request.limit), total: matching.length };
}
