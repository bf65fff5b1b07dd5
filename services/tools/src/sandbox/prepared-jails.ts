import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { Logger } from "pino";
import type { CgroupLimits, CommandCgroup } from "@aide/runtime";
import { HeadTailBuffer } from "./head-tail-buffer.js";
import type { SpawnedCommand } from "./spawn-sandboxed.js";
import { commandScript, shellWord } from "./warm-shells.js";
import { launchDirectly, type ShellLauncher } from "./launch-shell.js";
import type { LaunchedShell, ShellExit } from "./spawn-helper.js";

/**
 * A foreground command's jail set up ahead of need: bubblewrap with the namespaces and mounts of
 * one workspace and network profile (`args`, bubblewrap's options up to `--`, `--chdir` the
 * workspace), started by a shell that joined fresh cgroups and set the limits, running a
 * `/bin/sh -s` that waits on stdin. A command only pays the hand-off: the waiting shell gets one
 * script (`cd`, the command's environment, `exec` of its argv) and the jail dies with the command.
 *
 * A jail is given to a command only when it is what a fresh start would build now:
 * - its arguments equal the ones computed for this command (the git directories, `.aide`, the
 *   hidden paths, everything that decides a mount, as they are now);
 * - every host path a mount was made from or on has the identity it had before the jail was
 *   started (device, inode, type, birth time): a path replaced since then is another object than
 *   the one a fresh jail would mount;
 * - the jail's mount table is the one it had once set up: the kernel detaches a jail's mount when
 *   the host removes or renames over the path it sits on (a `git config` write renames over
 *   `.git/config`), which would leave the file writable inside;
 * - it printed nothing but its ready line (nothing ran in it but the waiting shell).
 * Otherwise it is killed and the command starts fresh. One jail serves one command.
 */
export interface JailProfile {
  /** One jail kept per slot (the workspace and its network policy). */
  slot: string;
  args: string[];
}

export interface PreparedJail {
  cgroup: CommandCgroup;
  /** Hands the waiting shell its command; output from now on in the buffer. */
  run(argv: readonly string[], env: Record<string, string>, cwd: string, halfOutputBytes: number): SpawnedCommand;
}

export interface PreparedJails {
  /** The jail prepared for this profile, if it is still what a fresh one would be (claimed at once; else discarded). */
  take(profile: JailProfile): Promise<PreparedJail | undefined>;
  /** Starts one for this profile in the background unless one is there already. */
  prepare(profile: JailProfile): void;
  close(): Promise<void>;
}

/** Targets bubblewrap mounts fresh file systems on (their host objects are never seen inside). */
const freshTargets = new Set(["/", "/dev", "/proc", "/tmp", "/var/tmp", "/run"]);

/** Host paths the profile's mounts are made from or on. */
export function mountPaths(args: readonly string[]): string[] {
  const paths = new Set<string>();
  for (let index = 0; index < args.length && args[index] !== "--"; index += 1) {
    const option = args[index];
    const operands =
      option === "--bind" || option === "--ro-bind" ? [args[index + 1], args[index + 2]] : option === "--tmpfs" || option === "--remount-ro" || option === "--chdir" ? [args[index + 1]] : [];
    for (const path of operands) if (path !== undefined && !freshTargets.has(path) && !path.startsWith("/tmp/")) paths.add(path);
  }
  return [...paths];
}

/** The object at a path: a replaced one differs even if its inode number was reused (birth time; ctime where the file system keeps none). */
export function pathIdentity(path: string): { key: string; bornNs: bigint } {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (stats === undefined) return { key: `${path}:absent`, bornNs: 0n };
  const born = stats.birthtimeNs > 0n ? stats.birthtimeNs : stats.ctimeNs;
  return { key: `${path}:${stats.dev}:${stats.ino}:${stats.mode & 0o170000n}:${born}`, bornNs: born };
}

/** The kernel's file clock is coarse: an object made this recently could share a birth time with one replaced in the same tick. */
const settleNs = 50_000_000n;

interface Jail extends PreparedJail {
  args: string;
  identities: string[];
  paths: string[];
  ready: Promise<boolean>;
  /** The ready line has been seen (a jail still starting is left for a later command). */
  isReady(): boolean;
  spoiled(): boolean;
  mountsChanged(): boolean;
  alive(): boolean;
  kill(): void;
  exited: Promise<unknown>;
  idle?: NodeJS.Timeout;
}

function spawnJail(profile: JailProfile, cgroups: CgroupLimits, limitSteps: string, identities: string[], paths: string[], launch: ShellLauncher): Jail {
  const marker = Buffer.from(`aide-jail-ready-${randomBytes(6).toString("hex")}\n`);
  let child: LaunchedShell | undefined;
  let cgroup: CommandCgroup | null = null;
  let output: HeadTailBuffer | undefined;
  let early = Buffer.alloc(0);
  let marked = false;
  let spoiled = false;
  let done = false;
  let signalReady: (ok: boolean) => void = () => undefined;
  const markerSeen = new Promise<boolean>((resolve) => (signalReady = resolve));
  const onStdout = (chunk: Buffer) => {
    if (output) return output.push(chunk);
    if (marked) return void (spoiled = true);
    early = Buffer.concat([early, chunk]);
    if (early.equals(marker)) {
      marked = true;
      signalReady(true);
    } else if (early.length >= marker.length || !marker.subarray(0, early.length).equals(early)) {
      spoiled = true;
      signalReady(false);
    }
  };
  const onStderr = (chunk: Buffer) => {
    if (output) return output.push(chunk);
    spoiled = true;
    signalReady(false);
  };
  let resolveExited: (value: ShellExit) => void = () => undefined;
  const exited = new Promise<ShellExit>((resolve) => (resolveExited = resolve));
  const kill = () => {
    if (child?.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
  };
  let setupMounts: string | undefined;
  // The mount namespace seen through bubblewrap's first child (pid 1 inside), from the host.
  const mountTable = (): string | undefined => {
    try {
      const pid = child?.pid;
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
      if (children.length !== 1 || !/^\d+$/.test(children[0])) return undefined;
      return readFileSync(`/proc/${children[0]}/mountinfo`, "utf8");
    } catch {
      return undefined;
    }
  };
  const ready = (async () => {
    // Never rejects: a jail whose groups cannot be made is one that did not start.
    cgroup = await cgroups.create("run").catch(() => null);
    if (cgroup === null) {
      done = true;
      resolveExited({ exitCode: null, signal: null });
      return false;
    }
    const joins = cgroup.procsFiles.map((file) => `echo $$ > ${shellWord(file)}`);
    // Limited and joined first; bubblewrap then builds the jail, whose shell reads its command from stdin.
    try {
      child = await launch(["-c", `${[limitSteps, ...joins].join(" && ")} && exec "$@"`, "sh", "bwrap", ...profile.args, "/bin/sh", "-s"]);
    } catch {
      done = true;
      resolveExited({ exitCode: null, signal: null });
      return false;
    }
    child.stdout?.on("data", onStdout);
    child.stderr?.on("data", onStderr);
    child.stdin?.on("error", () => undefined);
    child.stdin?.write(`printf '%s' ${shellWord(marker.toString())}\n`);
    void child.exited.then(resolveExited);
    void exited.then(() => {
      done = true;
      signalReady(false);
    });
    const ok = await markerSeen;
    // The mount table once set up (the waiting shell starts after the last mount).
    if (ok) setupMounts = mountTable();
    return ok && setupMounts !== undefined;
  })();
  const jail: Jail = {
    args: profile.args.join("\0"),
    get cgroup() {
      return cgroup as CommandCgroup;
    },
    identities,
    paths,
    ready,
    exited,
    spoiled: () => spoiled,
    isReady: () => setupMounts !== undefined,
    alive: () => !done && child?.pid !== undefined && child.gone?.() !== true,
    kill,
    mountsChanged: () => {
      const now = mountTable();
      return now === undefined || now !== setupMounts;
    },
    run(argv, env, cwd, halfOutputBytes) {
      output = new HeadTailBuffer(halfOutputBytes);
      child?.stdin?.end(commandScript(argv, env, cwd));
      return { pid: child?.pid, output, exited, kill };
    },
  };
  return jail;
}

/** Up to `capacity` jails, one per slot (the least recently prepared goes first), each dropped after `idleMs` unused. */
export function createPreparedJails(
  cgroups: CgroupLimits,
  logger: Logger,
  limitSteps: string,
  capacity: number,
  idleMs = 30_000,
  launch: ShellLauncher = async (args) => launchDirectly(args),
): PreparedJails {
  const jails = new Map<string, Jail>();
  const pending = new Set<Promise<void>>();
  let closed = false;
  let failures = 0;
  const maxFailures = 3;
  const discard = (jail: Jail, slot: string, reason: string) => {
    if (jail.idle) clearTimeout(jail.idle);
    logger.debug({ slot, reason, ready: jail.isReady() }, "prepared jail discarded");
    const gone = (async () => {
      await jail.ready;
      jail.kill();
      await jail.exited;
      await jail.cgroup?.release();
    })();
    pending.add(gone);
    void gone.finally(() => pending.delete(gone));
  };
  const unchanged = (jail: Jail): string | undefined => {
    if (!jail.alive() || jail.spoiled()) return "not waiting";
    if (jail.paths.some((path, index) => pathIdentity(path).key !== jail.identities[index])) return "a mounted path was replaced";
    if (jail.mountsChanged()) return "its mount table changed";
    return undefined;
  };
  return {
    async take(profile) {
      const key = profile.slot;
      const jail = jails.get(key);
      // One still starting is not waited for (that could take longer than a fresh start): it stays for the next command.
      if (jail === undefined || !jail.isReady()) return undefined;
      // Claimed before any await: commands starting at once never share one.
      jails.delete(key);
      if (jail.idle) clearTimeout(jail.idle);
      const ok = await jail.ready;
      const problem = !ok ? "it did not start" : jail.args !== profile.args.join("\0") ? "its arguments changed (the repositories, .aide or the hidden paths)" : unchanged(jail);
      if (problem === undefined) {
        logger.debug({ slot: key }, "prepared jail taken");
        return jail;
      }
      discard(jail, key, problem);
      return undefined;
    },
    prepare(profile) {
      const key = profile.slot;
      if (closed || failures >= maxFailures) return;
      const existing = jails.get(key);
      if (existing !== undefined) {
        if (existing.args === profile.args.join("\0")) return;
        jails.delete(key);
        discard(existing, key, "its arguments changed (the repositories, .aide or the hidden paths)");
      }
      const paths = mountPaths(profile.args);
      const identities = paths.map(pathIdentity);
      const now = BigInt(Date.now()) * 1_000_000n;
      if (identities.some((identity) => identity.bornNs > now - settleNs)) return;
      if (jails.size >= capacity) {
        const [oldestKey, oldest] = jails.entries().next().value as [string, Jail];
        jails.delete(oldestKey);
        discard(oldest, oldestKey, "capacity");
      }
      const jail = spawnJail(
        profile,
        cgroups,
        limitSteps,
        identities.map((identity) => identity.key),
        paths,
        launch,
      );
      jails.set(key, jail);
      jail.idle = setTimeout(() => {
        if (jails.get(key) !== jail) return;
        jails.delete(key);
        discard(jail, key, "idle");
      }, idleMs);
      jail.idle.unref();
      void jail.ready.then((ok) => {
        if (ok) logger.debug({ slot: key }, "prepared jail ready");
        // Where jails cannot start (or their mount table cannot be read), stop making them: every command then starts fresh.
        failures = ok ? 0 : failures + 1;
        if (failures === maxFailures) logger.warn({ failures }, "jails prepared ahead did not start; commands start bubblewrap themselves");
        if (ok || jails.get(key) !== jail) return;
        jails.delete(key);
        discard(jail, key, "it did not start");
      });
    },
    async close() {
      closed = true;
      for (const [key, jail] of jails) {
        jails.delete(key);
        discard(jail, key, "closing");
      }
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
