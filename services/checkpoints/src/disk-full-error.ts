/** Out-of-space errors as DISK_FULL. */
import { aideError, type AideError } from "@aide/contracts";

/** Where on the disk the write failed, named without the path (which may say more than needed). */
export type DiskArea = "checkpoints" | "workspace";

const diskFullMessage = /\bENOSPC\b|\bEDQUOT\b|No space left on device|Disk quota exceeded/i;

function areaOf(path: unknown, fallback: DiskArea): DiskArea {
  if (typeof path !== "string" || !path.includes("/")) return fallback;
  return /[\\/]\.aide[\\/]/.test(path) ? "checkpoints" : "workspace";
}

/**
 * A write that ran out of space (ENOSPC, or a quota: EDQUOT) is DISK_FULL, not INTERNAL: the
 * person can free space and retry. isomorphic-git and the git CLI may wrap the fs error (or only
 * say it in their message), so causes and messages are followed. The reply names the area
 * (`details.area`: the checkpoint store under .aide/, or the workspace's own files) and the errno,
 * not the full path of the file being written. When the error names no path, the area is the
 * one the operation writes (`fallbackArea`: a commit writes only the checkpoint store).
 */
export function diskFullError(error: unknown, workspace: string, fallbackArea: DiskArea = "checkpoints"): AideError | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if ((current as { code?: unknown }).code === "DISK_FULL") return current as AideError;
    const code = (current as { code?: unknown }).code;
    const message = String((current as { message?: unknown }).message ?? "");
    if (code === "ENOSPC" || code === "EDQUOT" || diskFullMessage.test(message)) {
      const errno = code === "EDQUOT" || /EDQUOT|quota/i.test(message) ? "EDQUOT" : "ENOSPC";
      const area = areaOf((current as { path?: unknown }).path ?? message, fallbackArea);
      const where = area === "checkpoints" ? "writing the checkpoint store (.aide/checkpoints)" : "writing the workspace's files";
      return aideError("DISK_FULL", { workspace, detail: `${errno} while ${where}` }, { area, errno });
    }
  }
  return undefined;
}
