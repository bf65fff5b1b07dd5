import { applySearchReplace, type SearchReplaceBlock, type SearchReplaceOptions } from "./apply-search-replace.js";
import { applyFilePatch } from "./apply-unified-diff.js";
import type { FilePatch } from "./parse-unified-diff.js";
import type { EditOutcome } from "./edit-outcome.js";

/** One file's matching work, as plain data so it can cross to a worker thread. */
export type EditJob =
  | { kind: "search_replace"; before: Uint8Array | null; blocks: SearchReplaceBlock[]; path: string; options: SearchReplaceOptions }
  | { kind: "file_patch"; before: Uint8Array | null; patch: FilePatch };

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function runEditJob(job: EditJob): EditOutcome {
  const before = job.before === null ? null : asBuffer(job.before);
  switch (job.kind) {
    case "search_replace":
      return applySearchReplace(before, job.blocks, job.path, job.options);
    case "file_patch":
      return applyFilePatch(before, job.patch);
    default: {
      const unreachable: never = job;
      return unreachable;
    }
  }
}
