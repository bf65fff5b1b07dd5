import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { requestJson } from "../../../tests/helpers/service-process.js";

/** Sends a request and returns the result, failing with the error body when the reply is an error. */
export async function call(connection: NatsConnection, subject: string, body: unknown, timeoutMs = 60_000): Promise<any> {
  const reply = await requestJson(connection, subject, body, timeoutMs);
  if (!reply.ok) throw Object.assign(new Error(`${subject}: ${reply.error.code} ${reply.error.message}`), { code: reply.error.code });
  return reply.result;
}

export async function callError(connection: NatsConnection, subject: string, body: unknown, timeoutMs = 60_000): Promise<{ code: string; message: string }> {
  const reply = await requestJson(connection, subject, body, timeoutMs);
  if (reply.ok) throw new Error(`${subject} succeeded where an error was expected: ${JSON.stringify(reply.result).slice(0, 300)}`);
  return reply.error;
}

/**
 * A fingerprint of every entry below `root` (type, mode bits, content hash or link target),
 * skipping top-level names in `skip`. Two equal snapshots mean byte-identical trees.
 */
export function snapshotTree(root: string, skip: readonly string[] = [".aide"]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      const rel = prefix === "" ? name : `${prefix}/${name}`;
      if (prefix === "" && skip.includes(name)) continue;
      const path = join(dir, name);
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) out[rel] = `link:${readlinkSync(path)}`;
      else if (stats.isDirectory()) { out[rel] = "dir"; walk(path, rel); }
      else out[rel] = `file:${(stats.mode & 0o111) !== 0 ? "x" : "-"}:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(root, "");
  return out;
}

/** Hashes every file under every `.git` below root (the user's repositories). */
export function hashGitDirectories(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, inGit: boolean) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (!inGit && path === join(root, ".aide")) continue;
      const stats = lstatSync(path);
      const git = inGit || name === ".git";
      if (stats.isDirectory()) walk(path, git);
      else if (git) out[path] = stats.isSymbolicLink() ? `link:${readlinkSync(path)}` : `${stats.mode}:${stats.mtimeMs}:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(root, false);
  return out;
}
