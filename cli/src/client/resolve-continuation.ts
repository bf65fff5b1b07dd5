import type { GatewayClient } from "./gateway-client.js";

/** A session to continue with a new run, and the workspace it keeps. */
export interface Continuation {
  session: string;
  workspace: string;
}

/** A continuation that cannot be made: said to the person, exit 2. */
export class ContinuationError extends Error {}

/**
 * `--resume SESSION`: that session (its workspace comes from its snapshot, so it can be resumed
 * from any directory). `--continue`: the session of `workspace` updated last, from the same list
 * `aide sessions` shows.
 */
export async function resolveContinuation(client: GatewayClient, request: { resume?: string; continueIn?: string }): Promise<Continuation | undefined> {
  if (request.resume !== undefined) {
    const snapshot = await client.status(request.resume);
    return { session: snapshot.id, workspace: snapshot.workspace };
  }
  if (request.continueIn === undefined) return undefined;
  const { sessions } = await client.sessions(500);
  const latest = sessions.filter((session) => session.workspace === request.continueIn).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0];
  if (!latest) throw new ContinuationError(`--continue: no earlier session in ${request.continueIn} (aide sessions lists them; start one with aide run "<task>")`);
  return { session: latest.id, workspace: latest.workspace };
}
