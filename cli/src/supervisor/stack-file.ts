import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { StackFileSchema as ClientStackFileSchema } from "@aide/contracts";

/**
 * Written by `aide up` while the stack runs, so clients (`aide run`, `aide events`) find it: the
 * client view in contracts plus what only the supervisor and `aide doctor` read.
 */
export const StackFileSchema = ClientStackFileSchema.extend({
  nats_url: z.string(),
  /** The CA file the bus's TLS certificate chains to; clients pin it (absent: external NATS without TLS). */
  nats_ca: z.string().optional(),
  /** The observer's credentials file (read-only bus access for `aide events`). */
  observer_credentials: z.string().optional(),
  pid: z.number().int().positive(),
  started_at: z.string(),
  /** Absent when the stack uses an external NATS. */
  nats_pid: z.number().int().positive().optional(),
  unsandboxed_services: z.boolean().default(false),
  /** pid: the service's node process; launcher_pid: bubblewrap's, when sandboxed. */
  services: z.record(z.string(), z.object({ pid: z.number().int().nullable(), launcher_pid: z.number().int().nullable().default(null), restarts: z.number().int() })).default({}),
});
export type StackFile = z.infer<typeof StackFileSchema>;

export function writeStackFile(path: string, stack: StackFile): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(stack, null, 2) + "\n", { mode: 0o600 });
  renameSync(temporary, path);
}

function parseStackFile(path: string): StackFile | undefined {
  try {
    const parsed = StackFileSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (signal 0 probes without touching it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The running stack, or undefined when there is none (no file, or its supervisor is gone). */
export function readStackFile(path: string): StackFile | undefined {
  const stack = parseStackFile(path);
  return stack && processAlive(stack.pid) ? stack : undefined;
}

/**
 * After a supervisor was killed outright (SIGKILL, OOM), its services die with it (bubblewrap's
 * --die-with-parent) but its nats-server would hold the port. Stops that orphan — only when the
 * process is still the nats-server started with this home's config — and reports what it did.
 */
export function reapOrphanedStack(path: string, natsConfigPath: string): string | undefined {
  const stack = parseStackFile(path);
  if (!stack || processAlive(stack.pid) || !stack.nats_pid || !processAlive(stack.nats_pid)) return undefined;
  let commandLine = "";
  try {
    commandLine = readFileSync(`/proc/${stack.nats_pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return undefined;
  }
  if (!commandLine.includes("nats-server") || !commandLine.includes(natsConfigPath)) return undefined;
  process.kill(stack.nats_pid, "SIGTERM");
  rmSync(path, { force: true });
  return `stopped nats-server ${stack.nats_pid} left behind by supervisor ${stack.pid}, which is gone`;
}

export function removeStackFile(path: string): void {
  rmSync(path, { force: true });
}
