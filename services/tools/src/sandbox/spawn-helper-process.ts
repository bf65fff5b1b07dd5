import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { SpawnRequestSchema, type SpawnReply } from "./spawn-helper-messages.js";

/**
 * The spawn helper (started by spawn-helper.ts with an empty environment and an IPC channel): it
 * forks the shells the sandbox makes ahead and passes their pipes back, so that the fork of the
 * large service process, and the wait until the child has exec'd (libuv's spawn is synchronous),
 * happen here and not on the service's event loop. It is the children's parent: it reaps each one
 * and reports how it ended. It lives exactly as long as its channel: once the service is gone
 * (stopped, crashed or SIGKILLed: the kernel closes the channel) it kills every child's process
 * group and exits. Signals meant for the service's process group are left to the service.
 */
const children = new Map<number, ChildProcess>();

const reply = (message: SpawnReply, handle?: Socket): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send?.(message, handle, {}, () => resolve());
  });

const killGroup = (pid: number | undefined) => {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is already gone
  }
};

process.on("message", (raw) => {
  const parsed = SpawnRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const id = typeof (raw as { id?: unknown })?.id === "number" ? (raw as { id: number }).id : undefined;
    process.stderr.write(`spawn helper: refused a request: ${parsed.error.issues.map((issue) => issue.message).join("; ")}\n`);
    if (id !== undefined && Number.isInteger(id) && id >= 0) void reply({ type: "failed", id, message: "refused by the spawn helper" });
    return;
  }
  const { id, file, args } = parsed.data;
  let child: ChildProcess;
  try {
    child = spawn(file, args, { env: {}, cwd: "/", stdio: ["pipe", "pipe", "pipe"], detached: true, windowsHide: true });
  } catch (error) {
    void reply({ type: "failed", id, message: (error as Error).message });
    return;
  }
  const pid = child.pid;
  if (pid === undefined) {
    child.once("error", (error) => void reply({ type: "failed", id, message: error.message }));
    return;
  }
  // Nothing is read here: the service reads every byte from the first one on (the pipes are
  // passed as they are; reading was only armed, synchronously, by spawn).
  const streams = [child.stdin, child.stdout, child.stderr] as unknown as Socket[];
  for (const stream of streams) (stream as unknown as { _handle?: { readStop?(): number } })._handle?.readStop?.();
  children.set(id, child);
  child.once("exit", (exitCode, signal) => {
    // Whatever the command left in its group goes with it (as the service did after each exit).
    killGroup(pid);
    children.delete(id);
    void reply({ type: "exited", id, exitCode, signal });
    if (parentGone && children.size === 0) process.exit(0);
  });
  child.once("error", () => undefined);
  void (async () => {
    // Sent one at a time (Node waits for each handle's acknowledgement); the helper's copy of
    // each pipe is closed once the service has it.
    await reply({ type: "stream", id, pid, stream: "stdin" }, streams[0]);
    await reply({ type: "stream", id, pid, stream: "stdout" }, streams[1]);
    await reply({ type: "stream", id, pid, stream: "stderr" }, streams[2]);
  })();
});

let parentGone = false;
const parent = process.ppid;
/** The service is gone: every group it had is killed, and the helper exits once they are reaped. */
const onParentGone = () => {
  if (parentGone) return;
  parentGone = true;
  for (const child of children.values()) {
    killGroup(child.pid);
    // Pipes not yet handed over (their acknowledgement will never come) are closed here.
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as Socket | null)?.destroy?.();
  }
  if (children.size === 0) process.exit(0);
  // Reaped by the exit handlers above; a child that cannot die in time is left to init.
  setTimeout(() => process.exit(0), 5_000).unref();
};
// Node emits no 'disconnect' when the channel ends while a passed handle waits for its
// acknowledgement (which a service killed in that moment never sends); it only marks the channel
// not connected. So that, and the parent itself (a reparented helper has lost it), are watched too.
process.on("disconnect", onParentGone);
setInterval(() => {
  if (!process.connected || process.ppid !== parent) onParentGone();
}, 250).unref();

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => undefined);
