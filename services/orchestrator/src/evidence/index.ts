export type { EvidenceKind, EvidenceEvent, EvidenceEvaluation } from "./evidence-kind.js";
export { EVIDENCE_KINDS } from "./evidence-kind.js";
export { deriveEvidenceRequirements } from "./derive-requirements.js";
export { EvidenceLedger } from "./evidence-ledger.js";
export { CompletionBudget } from "./completion-budget.js";
export type { CompletionOutcome } from "./completion-budget.js";
export { measurementNumbers, outputContainsNumber } from "./measurements.js";
