import { aideError, type ToolExecRequest, type ToolResult } from "@aide/contracts";
import type { Logger } from "pino";
import { canonicalJson, sha256Hex } from "../files/digest.js";
import { openCallJournal, type CallJournal } from "./call-journal.js";

/**
 * Mutations keyed by call id: one is run at most once per (session, call id). A repeat gets the
 * stored result; a duplicate sent while the first still runs waits for it; the same id with other
 * arguments is refused (CALL_ID_CONFLICT). Mutations are journaled under the state directory
 * before they run and when they finish, so after a restart a repeat still gets the result, or,
 * when the service stopped mid-call, an "interrupted" result instead of a second run.
 */
export interface CallStore {
  /** Runs a mutating call once; read-only calls are not routed here (running one again is harmless and fresher). */
  execute(request: ToolExecRequest, mutating: boolean, run: () => Promise<ToolResult>): Promise<ToolResult>;
  /** Where mutations are journaled, or undefined when kept in memory only. */
  directory: string | undefined;
  close(): Promise<void>;
}

interface Stored {
  fingerprint: string;
  state: "started" | "done";
  result?: ToolResult;
}

export interface CallStoreOptions {
  /** The state directory; undefined keeps results in memory only (lost on restart). */
  directory?: string;
  maxEntries: number;
  logger: Logger;
}

function keyOf(request: ToolExecRequest): string {
  return `${request.session}\u0000${request.call.id}`;
}

function fingerprintOf(request: ToolExecRequest): string {
  return sha256Hex(canonicalJson({ workspace: request.workspace, name: request.call.name, arguments: request.call.arguments }));
}

function interrupted(request: ToolExecRequest): ToolResult {
  return {
    call_id: request.call.id,
    name: request.call.name,
    is_error: true,
    output: `This call (${request.call.id}) was started before the tools service restarted and its outcome is unknown; it is not run again. Check the workspace (read the files or run a read-only command) before deciding to repeat it under a new call.`,
    metadata: { error_code: "CALL_INTERRUPTED", repeated: true },
    notices: [],
    changed_paths: [],
    duration_ms: 0,
  };
}

/** A stored result handed out again: marked so evidence and events can tell it did not run twice. */
function repeat(result: ToolResult): ToolResult {
  return { ...result, metadata: { ...result.metadata, repeated: true }, duration_ms: 0 };
}

export async function createCallStore(options: CallStoreOptions): Promise<CallStore> {
  const stored = new Map<string, Stored>();
  const running = new Map<string, Promise<ToolResult>>();
  let journal: CallJournal | undefined;
  if (options.directory !== undefined) {
    try {
      journal = await openCallJournal(options.directory, options.maxEntries, options.logger);
      // "done" without a result: the call was refused before it ran, so a repeat may run it.
      for (const entry of journal.entries)
        if (entry.state === "started" || entry.result !== undefined) stored.set(entry.key, { fingerprint: entry.fingerprint, state: entry.state, result: entry.result });
    } catch (error) {
      options.logger.error(
        { err: (error as Error).message, directory: options.directory },
        "the call journal cannot be opened: repeated call ids are answered from memory only (a restart forgets them)",
      );
    }
  } else {
    options.logger.warn("no state directory (AIDE_TOOLS_STATE_DIR or AIDE_HOME): repeated call ids are answered from memory only");
  }
  const remember = (key: string, value: Stored) => {
    stored.delete(key);
    stored.set(key, value);
    while (stored.size > options.maxEntries) stored.delete(stored.keys().next().value as string);
  };

  const first = async (request: ToolExecRequest, key: string, fingerprint: string, mutating: boolean, run: () => Promise<ToolResult>) => {
    const durable = mutating && journal !== undefined;
    if (durable && !(await journal!.append({ key, fingerprint, state: "started" }))) {
      const errno = journal!.lastFailure();
      if (errno === "ENOSPC" || errno === "EDQUOT") {
        throw aideError("DISK_FULL", { workspace: "the tools service's state directory", detail: `${errno}: the call journal could not record the call, so it was not run` }, { area: "tools_state" });
      }
      throw aideError("TOOL_FAILED", { tool: request.call.name, detail: "the call journal could not record the call, so it was not run" });
    }
    let result: ToolResult;
    try {
      result = await run();
    } catch (error) {
      // An error reply means the call did not run (stale approval, no sandbox, busy): a retry may run it.
      stored.delete(key);
      if (durable) await journal!.append({ key, fingerprint, state: "done" });
      throw error;
    }
    remember(key, { fingerprint, state: "done", result });
    if (durable) await journal!.append({ key, fingerprint, state: "done", result });
    return result;
  };

  return {
    directory: journal === undefined ? undefined : options.directory,
    async execute(request, mutating, run) {
      const key = keyOf(request);
      const fingerprint = fingerprintOf(request);
      const known = stored.get(key);
      if (known !== undefined && known.fingerprint !== fingerprint) {
        throw aideError("CALL_ID_CONFLICT", { call: request.call.id, detail: "other tool, arguments or workspace" });
      }
      const inFlight = running.get(key);
      if (inFlight !== undefined) return repeat(await inFlight);
      if (known?.state === "done" && known.result !== undefined) return repeat(known.result);
      if (known?.state === "started") return interrupted(request);
      const work = first(request, key, fingerprint, mutating, run);
      running.set(key, work);
      remember(key, { fingerprint, state: "started" });
      try {
        return await work;
      } finally {
        running.delete(key);
      }
    },
    async close() {
      await journal?.close();
    },
  };
}
