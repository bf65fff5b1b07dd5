import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { StackFileSchema as ClientStackFileSchema } from "@aide/contracts";

/**
 * Written by `aide up` while the stack runs, so clients (`aide run`, `aide events`) find it: the
 * client view in contracts plus what only the supervisor and `aide doctor` read.
 */
export const StackFileSchema = ClientStackFileSchema.extend({
  nats_url: z.string(),
  /** The observer's credentials file (read-only bus access for `aide events`). */
  observer_credentials: z.string().optional(),
  pid: z.number().int().positive(),
  started_at: z.string(),
  /** Absent when the stack uses an external NATS. */
  nats_pid: z.number().int().positive().optional(),
  unsandboxed_services: z.boolean().default(false),
  /** pid: the service's node process; launcher_pid: bubblewrap's, when sandboxed. */
  services: z
    .record(z.string(), z.object({ pid: z.number().int().nullable(), launcher_pid: z.number().int().nullable().default(null), restarts: z.number().int() }))
    .default({}),
});
export type StackFile = z.infer<typeof StackFileSchema>;

export function writeStackFile(path: string, stack: StackFile): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(stack, null, 2) + "\n", { mode: 0o600 });
  renameSync(temporary, path);
}

/** The running stack, or undefined when there is none (no file, or its supervisor is gone). */
export function readStackFile(path: string): StackFile | undefined {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const parsed = StackFileSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) return undefined;
  try {
    process.kill(parsed.data.pid, 0);
  } catch {
    return undefined;
  }
  return parsed.data;
}

export function removeStackFile(path: string): void {
  rmSync(path, { force: true });
}
