import { z } from "zod";

/**
 * Who wrote a memory. `person`: the person wrote it themselves (no client offers this yet, so no
 * stored memory has it today). `agent`: a run's `remember` call wrote it (even when a person
 * approved the call, the text is the model's, and the model may have copied it from a file).
 * `unknown`: a record from before provenance was kept; treated like `agent`.
 */
export const MemoryAuthorSchema = z.enum(["person", "agent", "unknown"]);
export type MemoryAuthor = z.infer<typeof MemoryAuthorSchema>;

/** Where a memory came from: the run that wrote it, who let it through, what the run had read. */
export const MemoryProvenanceSchema = z.object({
  session: z.string(),
  run: z.string(),
  /** `person`: a person approved the remember call; `rule`: the session's `auto_approve.memory` rule. */
  approved_by: z.enum(["person", "rule"]),
  /** The approval id when a person approved it. */
  approval: z.string().optional(),
  /** Workspace paths the run had read (read_file, search_files, list_dir) before the memory was written. */
  files_read: z.array(z.string()).default([]),
});
export type MemoryProvenance = z.infer<typeof MemoryProvenanceSchema>;

/** A memory as shown to a person (the `memory.loaded` event). */
export const MemorySummarySchema = z.object({
  id: z.string(),
  text: z.string(),
  author: MemoryAuthorSchema,
  created_at: z.string(),
  provenance: MemoryProvenanceSchema.optional(),
});
export type MemorySummary = z.infer<typeof MemorySummarySchema>;
