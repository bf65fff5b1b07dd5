import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import type { NatsConnection } from "nats";
import { afterAll, beforeAll } from "vitest";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";

/** A real checkpoints service on a real bus for one test file, with its workspaces under `root`. */
export interface CheckpointsHarness {
  bus: TestBus;
  service: ServiceProcess;
  /** Connected as the orchestrator, the service's caller. */
  client: NatsConnection;
  root: string;
  env(): Record<string, string>;
  /** Stops the service and starts a fresh process (nothing cached) with the same settings. */
  restart(): Promise<void>;
}

/** Registers the file's beforeAll/afterAll: a bus, the service (`extraEnv` over the defaults), a client. */
export function useCheckpointsService(prefix: string, extraEnv: Record<string, string> = {}): CheckpointsHarness {
  const harness = {
    env: () => ({ AIDE_WORKSPACE_ROOTS: harness.root, AIDE_LOG_LEVEL: "info", ...extraEnv }),
    restart: async () => {
      await harness.service.stop();
      harness.service = await startServiceProcess(harness.bus, "checkpoints", { env: harness.env() });
    },
  } as CheckpointsHarness;
  beforeAll(async () => {
    harness.root = mkdtempSync(join(tmpdir(), prefix));
    harness.bus = await startTestBus();
    harness.service = await startServiceProcess(harness.bus, "checkpoints", { env: harness.env() });
    harness.client = await harness.bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await harness.service?.stop();
    await harness.bus?.stop();
    if (harness.root) rmSync(harness.root, { recursive: true, force: true });
  });
  return harness;
}

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
      else if (stats.isDirectory()) {
        out[rel] = "dir";
        walk(path, rel);
      } else out[rel] = `file:${(stats.mode & 0o111) !== 0 ? "x" : "-"}:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
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

/** Text, binary, empty, executable, symlinks, unicode, CRLF and invalid UTF-8, plus excluded folders. */
export function writeNastyTree(ws: string): void {
  mkdirSync(join(ws, "src", "deep", "er"), { recursive: true });
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(ws, "src", "deep", "er", "b.bin"), Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));
  writeFileSync(join(ws, "empty"), "");
  writeFileSync(join(ws, "crlf.txt"), "one\r\ntwo\r\n");
  writeFileSync(join(ws, "invalid-utf8.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0xc3]));
  writeFileSync(join(ws, "héllo wörld 日本.txt"), "unicode name\n");
  writeFileSync(join(ws, "run.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(ws, "run.sh"), 0o755);
  writeFileSync(join(ws, "was-exec.sh"), "#!/bin/sh\n");
  chmodSync(join(ws, "was-exec.sh"), 0o755);
  symlinkSync("src/a.ts", join(ws, "link-to-file"));
  symlinkSync("src", join(ws, "link-to-dir"));
  symlinkSync("does/not/exist", join(ws, "dangling"));
  mkdirSync(join(ws, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(ws, "node_modules", "pkg", "index.js"), "excluded\n");
  mkdirSync(join(ws, "folder-becomes-file"));
  writeFileSync(join(ws, "folder-becomes-file", "inside.txt"), "inside\n");
  writeFileSync(join(ws, "file-becomes-folder"), "plain\n");
}

/** Edits, deletes, creates, chmods, swaps files for links and folders for files (and back). */
export function mutateNastyTree(ws: string): void {
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 2;\n");
  appendFileSync(join(ws, "crlf.txt"), "three\r\n");
  rmSync(join(ws, "src", "deep"), { recursive: true });
  unlinkSync(join(ws, "empty"));
  writeFileSync(join(ws, "created.txt"), "created later\n");
  mkdirSync(join(ws, "new-folder", "nested"), { recursive: true });
  writeFileSync(join(ws, "new-folder", "nested", "n.txt"), "n\n");
  chmodSync(join(ws, "was-exec.sh"), 0o644);
  chmodSync(join(ws, "src", "a.ts"), 0o755);
  unlinkSync(join(ws, "link-to-file"));
  writeFileSync(join(ws, "link-to-file"), "now a file\n");
  unlinkSync(join(ws, "héllo wörld 日本.txt"));
  symlinkSync("/etc/passwd", join(ws, "héllo wörld 日本.txt"));
  rmSync(join(ws, "folder-becomes-file"), { recursive: true });
  writeFileSync(join(ws, "folder-becomes-file"), "now a file\n");
  unlinkSync(join(ws, "file-becomes-folder"));
  mkdirSync(join(ws, "file-becomes-folder"));
  writeFileSync(join(ws, "file-becomes-folder", "child.txt"), "child\n");
  writeFileSync(join(ws, "node_modules", "pkg", "index.js"), "changed, but excluded\n");
  writeFileSync(join(ws, "node_modules", "added.js"), "added, but excluded\n");
}
