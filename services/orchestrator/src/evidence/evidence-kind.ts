import type { Claim } from "./extract-claims.js";

/** What a request needs before its completion is accepted (the evidence table: evidence-ledger.ts). */
export type EvidenceKind = "artifact" | "execution" | "source_file" | "report" | "measurements";

export const EVIDENCE_KINDS: readonly EvidenceKind[] = ["artifact", "execution", "source_file", "report", "measurements"];

/** One tool result of the current run, as the ledger sees it. */
export type EvidenceEvent = {
  seq: number;
  tool: string;
  is_error: boolean;
  args: Record<string, unknown>;
  metadata: Record<string, unknown>;
  output: string;
  changed_paths: string[];
};

/** What a rejected completion lacks: a kind of the table, `claims` when its text claims results no event backs, or `answer` when a question's completion says nothing. */
export type MissingEvidence = EvidenceKind | "claims" | "answer";

export type EvidenceEvaluation = {
  satisfied: boolean;
  missing: MissingEvidence[];
  /** The focused recovery instruction for the model ("" when satisfied). */
  instruction: string;
  /** Short descriptions of the events that count, for the completion event and the person. */
  evidence: string[];
  /** The completion's claims that no event of the run backs (the claims audit). */
  claims: UnbackedClaim[];
};

/** A claim in a completion that no event of the run backs, with what the events do show (`answer`: a name or number of an answer). */
export type UnbackedClaim = { kind: Claim["kind"] | "answer"; quote: string; events_show: string };
