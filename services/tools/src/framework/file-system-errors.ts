/** Errors of the file system the model can act on (read-only mount, permissions, disk full). */
const fileSystemCodes = new Set([
  "EROFS",
  "EACCES",
  "EPERM",
  "ENOSPC",
  "EDQUOT",
  "EISDIR",
  "ENOTDIR",
  "EEXIST",
  "ENAMETOOLONG",
  "ELOOP",
  "EMFILE",
  "ENFILE",
  "EFBIG",
  "ENOENT",
  "EBUSY",
  "ETXTBSY",
  "EINVAL",
]);

export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string" && fileSystemCodes.has((error as NodeJS.ErrnoException).code!);
}

export function describeFileSystemError(error: NodeJS.ErrnoException, root: string): string {
  const where = typeof error.path === "string" ? error.path.replace(root + "/", "") : "the file";
  const meaning: Record<string, string> = {
    EROFS: "is on a read-only file system (protected by the sandbox)",
    EACCES: "is not accessible (permission denied)",
    EPERM: "may not be changed (operation not permitted)",
    ENOSPC: "could not be written: the disk is full",
    EDQUOT: "could not be written: the disk quota is exceeded",
  };
  return `${where} ${meaning[error.code ?? ""] ?? `could not be used (${error.code})`}.`;
}

/** A write that ran out of space (or quota): DISK_FULL, which the run can pause on, not a tool bug. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}
