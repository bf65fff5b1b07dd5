import { linkSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { processAlive } from "./stack-file.js";

/**
 * One supervisor per `$AIDE_HOME`: a lock file holding the owner's pid, so two `aide up` started at
 * once cannot both pass the stack.json check. A lock whose pid is gone (a supervisor killed
 * outright) is taken over.
 *
 * The file appears whole or not at all: the pid is written to a private file first and that file is
 * hard-linked into place (link(2) fails on an existing name, as O_EXCL does). With O_EXCL and a
 * write after it, a second starter could read the lock between the two, find it empty, take it for
 * a dead starter's, remove it and take the home too: both supervisors started, and neither came up.
 * A stale lock is taken away by renaming it to a private name and reading what was renamed: when
 * that is not the stale lock that was judged (another starter replaced it meanwhile), it is linked
 * back.
 * Returns undefined when taken, or the pid of the live supervisor that holds it.
 */
export function acquireHomeLock(path: string, pid = process.pid): number | undefined {
  removeLeftovers(path);
  const mine = `${path}.${pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(mine, `${pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(mine, path);
        return undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const seen = lockText(path);
      if (seen === undefined) continue; // removed in between: try again
      const holder = parsePid(seen);
      if (holder === pid) return undefined;
      if (holder !== undefined && processAlive(holder)) return holder;
      takeAwayStale(path, seen, pid);
    }
    return parsePid(lockText(path) ?? "") ?? -1;
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Moves a lock judged stale out of the way; a lock that changed since it was judged is put back. */
function takeAwayStale(path: string, judged: string, pid: number): void {
  const aside = `${path}.stale.${pid}.${randomBytes(6).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (lockText(aside) !== judged) {
    // A live starter's lock was moved: it goes back unless a third one took the name meanwhile.
    try {
      linkSync(aside, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  rmSync(aside, { force: true });
}

/** Private files of starters killed between writing and removing them (`<lock>.<pid>.*`, `<lock>.stale.<pid>.*`). */
function removeLeftovers(path: string): void {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(?:stale\.)?(\d+)\.[0-9a-f]{12}$/.exec(name.slice(prefix.length));
    if (match && !processAlive(Number(match[1]))) rmSync(join(dirname(path), name), { force: true });
  }
}

function lockText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function parsePid(text: string): number | undefined {
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Removes the lock only when this process holds it. */
export function releaseHomeLock(path: string, pid = process.pid): void {
  if (parsePid(lockText(path) ?? "") === pid) rmSync(path, { force: true });
}
