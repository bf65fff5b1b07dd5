import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { processAlive } from "./stack-file.js";

/**
 * One supervisor per `$AIDE_HOME`: a lock file created exclusively (O_EXCL) holding the owner's
 * pid, so two `aide up` started at once cannot both pass the stack.json check. A lock whose pid is
 * gone (a supervisor killed outright) is taken over.
 * Returns undefined when taken, or the pid of the live supervisor that holds it.
 */
export function acquireHomeLock(path: string, pid = process.pid): number | undefined {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${pid}\n`, { flag: "wx", mode: 0o600 });
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = lockHolder(path);
    if (holder !== undefined && holder !== pid && processAlive(holder)) return holder;
    if (holder === pid) return undefined;
    // Stale (or half-written by a starter that died): remove and try again.
    rmSync(path, { force: true });
  }
  return lockHolder(path) ?? -1;
}

function lockHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the lock only when this process holds it. */
export function releaseHomeLock(path: string, pid = process.pid): void {
  if (lockHolder(path) === pid) rmSync(path, { force: true });
}
