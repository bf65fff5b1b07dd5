import type { FileDiff } from "@aide/contracts";

/** The line a cut diff ends with: a `\` line, which unified-diff readers show as a note, not as code. */
export const truncationMarker = "\\ aide: the rest of this file's diff was cut (the diff is larger than one reply carries); compare fewer files or open the file";

/**
 * A file's diff that the checkpoints service cut to fit the reply (`truncated: true`) ends on a
 * byte boundary, mid-line: it is cut back to its last whole line and ends with the marker line,
 * so a reader sees where it stops instead of a garbled last line.
 */
export function markTruncatedDiff(file: FileDiff): FileDiff {
  if (!file.truncated || file.diff === undefined) return file;
  const whole = file.diff.endsWith("\n") ? file.diff : file.diff.slice(0, file.diff.lastIndexOf("\n") + 1);
  return { ...file, diff: `${whole}${truncationMarker}\n` };
}
