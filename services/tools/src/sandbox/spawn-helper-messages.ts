import { z } from "zod";

/**
 * What the tools service and its spawn helper (spawn-helper.ts, spawn-helper-process.ts) say over
 * their IPC channel. The helper starts only `/bin/sh`, always with an empty environment, in `/`,
 * in a process group of its own: what the shells and jails made ahead need, and nothing else.
 */
export const SpawnRequestSchema = z.object({
  type: z.literal("spawn"),
  id: z.number().int().nonnegative(),
  file: z.literal("/bin/sh"),
  args: z.array(z.string().refine((arg) => !arg.includes("\0"), "no NUL in an argument")),
});
export type SpawnRequest = z.infer<typeof SpawnRequestSchema>;

const id = z.number().int().nonnegative();

/** One of the child's pipes (its parent end, passed as a handle with the message), or its end. */
export const SpawnReplySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("stream"), id, pid: z.number().int().positive(), stream: z.enum(["stdin", "stdout", "stderr"]) }),
  z.object({ type: z.literal("failed"), id, message: z.string() }),
  z.object({ type: z.literal("exited"), id, exitCode: z.number().int().nullable(), signal: z.string().nullable() }),
]);
export type SpawnReply = z.infer<typeof SpawnReplySchema>;
