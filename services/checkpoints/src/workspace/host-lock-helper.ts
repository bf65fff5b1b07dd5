/**
 * One long-lived helper process per service that takes and drops every workspace's flock(2):
 * one descriptor per lock, so a lock costs a line on a pipe each way, and no process is started
 * per workspace or per lock (the per-workspace shell started one `flock` child per lock and cost
 * the service one spawn of itself per workspace).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { aideError } from "@aide/contracts";

/**
 * The helper: perl (perl-base is part of every Debian and Ubuntu system, git needs it too), since
 * Node has no flock. Commands, one a line: `lock <id> <hex path>` opens the file (O_APPEND, created
 * if missing, never through a symlink) and takes an exclusive flock on that descriptor, trying
 * without blocking and again every 10 ms while the file is held elsewhere, so one busy file never
 * holds up the others; answers `locked <id> <dev>:<ino>` of the descriptor it locked, or
 * `failed <id> <reason>`. `unlock <id>` closes the descriptor (the kernel drops its lock; also a
 * waiting `lock` is abandoned so) and answers `unlocked <id>`. When its stdin ends (the service
 * closed it, or died however it died) the helper exits and the kernel drops every lock it held.
 */
const helperScript = String.raw`
use strict; use warnings; use Fcntl qw(:DEFAULT :flock);
$| = 1;
my (%files, %waiting);
my $in = '';
my $watch = '';
vec($watch, fileno(STDIN), 1) = 1;
sub try_lock {
  my ($id) = @_;
  if (flock($files{$id}, LOCK_EX | LOCK_NB)) {
    delete $waiting{$id};
    my @s = stat($files{$id});
    print "locked $id $s[0]:$s[1]\n";
  } elsif (!$!{EWOULDBLOCK} && !$!{EINTR}) {
    my $reason = "$!";
    delete $waiting{$id}; close(delete $files{$id});
    print "failed $id flock: $reason\n";
  }
}
print "ready\n";
while (1) {
  my $ready = select(my $seen = $watch, undef, undef, %waiting ? 0.01 : undef);
  if ($ready > 0) {
    my $read = sysread(STDIN, $in, 65536, length $in);
    next if !defined $read && $!{EINTR};
    exit 0 unless $read;
    while ($in =~ s/^([^\n]*)\n//) {
      my $line = $1;
      my ($verb, $id, $hex) = split / /, $line;
      exit 1 unless defined $id && $id =~ /^\d+$/;
      if ($verb eq 'lock' && defined $hex && !exists $files{$id}) {
        my $path = pack('H*', $hex);
        if (!sysopen(my $file, $path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0666)) { print "failed $id open: $!\n"; }
        elsif (!-f $file) { close($file); print "failed $id not a regular file\n"; }
        else { $files{$id} = $file; $waiting{$id} = 1; try_lock($id); }
      } elsif ($verb eq 'unlock') {
        delete $waiting{$id};
        close(delete $files{$id}) if exists $files{$id};
        print "unlocked $id\n";
      } else { exit 1; }
    }
  }
  try_lock($_) for keys %waiting;
}
`;

/** A flock held through the helper until `release` (or the helper's death: the kernel drops it). */
export interface HelperLock {
  /** `<device>:<inode>` of the descriptor the helper locked. */
  fileKey: string;
  /** Fires if the helper exits while the lock is held: the kernel has dropped it. */
  lost: AbortSignal;
  release(): Promise<void>;
}

/** One running helper and what waits on it or is held through it. */
interface Running {
  child: ChildProcess;
  /** Per request id: the resolver of its next answer ("" once the helper has gone). */
  waiters: Map<number, (line: string) => void>;
  /** Per held lock: fired when the helper goes while it is held. */
  held: Map<number, AbortController>;
  buffered: string;
  /** Ended by us (idle, or close): not counted as a loss. */
  ended: boolean;
  gone: boolean;
}

/** Helpers lost (exited unasked) this many times within a minute are not started again until the minute has passed. */
const maxLossesPerMinute = 3;
/** A helper holding and awaiting nothing this long is ended (the next lock starts another). */
const idleHelperMs = 30_000;

/** `details.reason` of the CHECKPOINT_FAILED a helper's exit causes (a lock asked for again starts a new helper). */
export const helperExitedReason = "lock_helper_exited";

const lostError = () =>
  aideError("CHECKPOINT_FAILED", { detail: "the workspace lock's helper exited while the lock was held (the kernel dropped the lock); the operation was stopped" }, { reason: helperExitedReason });

/**
 * The service's lock helper. `lock` resolves once the helper holds the flock of `path`,
 * undefined when no helper can run here (no perl: the caller uses its own way), and rejects with
 * CHECKPOINT_FAILED when the helper failed or went (asking again starts a new helper).
 */
export class HostLockHelper {
  private running: Running | undefined;
  private nextId = 1;
  private losses: number[] = [];
  private unavailable = false;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Processes started so far (the tests count them). */
  started = 0;

  /** `perl`: the program run (a test names a missing one to see the fallback). */
  constructor(private readonly program = "perl") {}

  /** The helper's pid while one runs. */
  get pid(): number | undefined {
    return this.running?.child.pid;
  }

  /** True once perl turned out to be missing: every `lock` then resolves undefined. */
  get missing(): boolean {
    return this.unavailable;
  }

  async lock(path: string, signal: AbortSignal): Promise<HelperLock | undefined> {
    if (this.unavailable) return undefined;
    if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
    const running = this.ensure();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    const answer = this.answer(running, id);
    running.child.stdin!.write(`lock ${id} ${Buffer.from(path).toString("hex")}\n`);
    // An abandoned wait closes the descriptor: the lock is dropped whether or not it was taken meanwhile.
    const onAbort = () => {
      void this.unlock(running, id);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    let line: string;
    try {
      line = await answer;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (line === "" && this.unavailable) return undefined;
    if (signal.aborted) throw signal.reason ?? aideError("ABORTED");
    const locked = /^locked \d+ (\d+:\d+)$/.exec(line);
    if (!locked || running.gone) {
      if (locked) void this.unlock(running, id);
      this.scheduleIdle();
      if (line === "" || running.gone) throw aideError("CHECKPOINT_FAILED", { detail: "the workspace lock's helper exited while a lock was asked for" }, { reason: helperExitedReason });
      throw aideError("CHECKPOINT_FAILED", { detail: `the workspace lock on ${path}: ${line.replace(/^\w+ \d+ ?/, "") || "not taken"}` });
    }
    const lost = new AbortController();
    running.held.set(id, lost);
    return {
      fileKey: locked[1]!,
      lost: lost.signal,
      release: async () => {
        if (!running.held.delete(id)) return;
        await this.unlock(running, id);
        this.scheduleIdle();
      },
    };
  }

  /** Ends the helper; every lock it held is dropped by the kernel (and reported lost). */
  close(): void {
    clearTimeout(this.idleTimer);
    const running = this.running;
    if (running === undefined) return;
    running.ended = true;
    this.running = undefined;
    running.child.stdin!.end();
    this.gone(running);
  }

  private async unlock(running: Running, id: number): Promise<void> {
    if (running.gone) return;
    // A `lock` still waiting gets the "unlocked" answer itself (and so is not taken).
    const answer = running.waiters.has(id) ? undefined : this.answer(running, id);
    running.child.stdin!.write(`unlock ${id}\n`);
    if (answer) await answer;
  }

  private answer(running: Running, id: number): Promise<string> {
    if (running.gone) return Promise.resolve("");
    const promise = new Promise<string>((resolve) => running.waiters.set(id, resolve));
    refPipes(running);
    return promise;
  }

  private scheduleIdle(): void {
    clearTimeout(this.idleTimer);
    const running = this.running;
    if (running === undefined || running.held.size > 0 || running.waiters.size > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.running === running && running.held.size === 0 && running.waiters.size === 0) this.close();
    }, idleHelperMs);
    this.idleTimer.unref();
  }

  private ensure(): Running {
    if (this.running !== undefined && !this.running.gone) return this.running;
    const now = Date.now();
    this.losses = this.losses.filter((at) => now - at < 60_000);
    if (this.losses.length >= maxLossesPerMinute)
      throw aideError("CHECKPOINT_FAILED", { detail: `the workspace lock's helper exited ${this.losses.length} times within a minute; it is started again once that minute has passed` });
    const child = spawn(this.program, ["-e", helperScript], { stdio: ["pipe", "pipe", "ignore"] });
    this.started++;
    const running: Running = { child, waiters: new Map(), held: new Map(), buffered: "", ended: false, gone: false };
    this.running = running;
    child.stdout!.on("data", (chunk: Buffer) => {
      running.buffered += chunk.toString();
      for (let end = running.buffered.indexOf("\n"); end !== -1; end = running.buffered.indexOf("\n")) {
        const line = running.buffered.slice(0, end);
        running.buffered = running.buffered.slice(end + 1);
        const id = Number(/^\w+ (\d+)/.exec(line)?.[1]);
        const waiter = running.waiters.get(id);
        if (waiter === undefined) continue;
        running.waiters.delete(id);
        waiter(line);
      }
      refPipes(running);
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") this.unavailable = true;
      this.gone(running);
    });
    child.once("exit", () => this.gone(running));
    // A helper gone early makes our end of its pipe fail: never an uncaught error that ends the service.
    child.stdin!.on("error", () => undefined);
    // An idle helper never keeps the service from exiting; an awaited answer does (refPipes).
    child.unref();
    refPipes(running);
    return running;
  }

  private gone(running: Running): void {
    if (running.gone) return;
    running.gone = true;
    if (this.running === running) this.running = undefined;
    if (!running.ended && !this.unavailable) this.losses.push(Date.now());
    for (const waiter of [...running.waiters.values()]) waiter("");
    running.waiters.clear();
    const held = [...running.held.values()];
    running.held.clear();
    for (const controller of held) controller.abort(lostError());
  }
}

/** The pipes keep this process up only while an answer is awaited. */
function refPipes(running: Running): void {
  const pipes = [running.child.stdout, running.child.stdin] as unknown as Array<{ ref?: () => void; unref?: () => void } | null>;
  for (const pipe of pipes) {
    if (running.waiters.size > 0 && !running.gone) pipe?.ref?.();
    else pipe?.unref?.();
  }
}

/** The one helper of this process. */
export const hostLockHelper = new HostLockHelper();
