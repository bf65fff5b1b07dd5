import type { CallOutcome } from "../session/session-record.js";

export function errorOutcome(output: string, metadata: Record<string, unknown> = {}): CallOutcome {
  return { is_error: true, output, metadata, changed_paths: [], notices: [] };
}

/** A call refused before running (guards, plan mode, forbidden): counts toward the mistake limit. */
export function refusal(output: string, metadata: Record<string, unknown> = {}): CallOutcome {
  return errorOutcome(output, { ...metadata, refused: true });
}
