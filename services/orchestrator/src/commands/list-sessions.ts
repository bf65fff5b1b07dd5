import type { z } from "zod";
import type { SessionSnapshot, SessionsRequestSchema } from "@aide/contracts";
import type { Orchestrator } from "../orchestrator.js";
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

/**
 * `agent.cmd.sessions`: the stored sessions (a live one as this instance holds it), filtered,
 * newest first (by the last change), one page of them, and how many match in all.
 */
export async function listSessions(orchestrator: Orchestrator, request: SessionsRequest): Promise<{ sessions: SessionSnapshot[]; total: number }> {
  const records = await orchestrator.seams.store.list();
  const matching = records
    .map((record) => sessionSnapshot(orchestrator.sessions.get(record.id)?.record ?? record))
    .filter((snapshot) => matches(snapshot, request))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.created_at.localeCompare(a.created_at));
  return { sessions: matching.slice(request.offset, request.offset + request.limit), total: matching.length };
}
