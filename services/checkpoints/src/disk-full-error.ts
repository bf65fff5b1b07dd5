/** Out-of-space errors as DISK_FULL. */
import { aideError, type AideError } from "@aide/contracts";

/**
 * A commit that ran out of space (ENOSPC, or a quota: EDQUOT) is DISK_FULL, not INTERNAL: the
 * person can free space and retry. isomorphic-git may wrap the fs error, so causes are followed.
 */
export function diskFullError(error: unknown, workspace: string): AideError | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    const message = String((current as { message?: unknown }).message ?? "");
    if (code === "ENOSPC" || code === "EDQUOT" || /\bENOSPC\b/.test(message)) {
      return aideError("DISK_FULL", { workspace, detail: message || String(code) });
    }
  }
  return undefined;
}
