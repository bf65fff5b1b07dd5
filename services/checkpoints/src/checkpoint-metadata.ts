/** The metadata a checkpoint carries in its commit message, the refs that name checkpoints, and commit parsing. */
import { createHash } from "node:crypto";
import { z } from "zod";
import { IdSchema, type Checkpoint } from "@aide/contracts";

const trailer = "aide-checkpoint: ";

export const CheckpointMetadataSchema = z.object({
  session: IdSchema,
  run: z.string().optional(),
  message_index: z.number().int().nonnegative().optional(),
  files_changed: z.number().int().nonnegative(),
  created_at: z.string(),
});
export type CheckpointMetadata = z.infer<typeof CheckpointMetadataSchema>;

/** The commit message: the label, then one trailer line with the metadata as JSON. */
export function encodeCheckpointMessage(label: string, metadata: CheckpointMetadata): string {
  return `${label.replace(/\n/g, " ")}\n\n${trailer}${JSON.stringify(metadata)}\n`;
}

export function decodeCheckpointMessage(id: string, message: string): Checkpoint | undefined {
  const lines = message.split("\n");
  const line = lines.find((l) => l.startsWith(trailer));
  if (line === undefined) return undefined;
  try {
    const parsed = CheckpointMetadataSchema.safeParse(JSON.parse(line.slice(trailer.length)));
    if (!parsed.success) return undefined;
    return { id, label: lines[0] ?? "", ...parsed.data };
  } catch {
    return undefined;
  }
}

/** The run part of a ref name: the run id when it is ref-safe, else a hash of it. */
export function runKey(run: string | undefined): string {
  if (run === undefined) return "_";
  return /^[A-Za-z0-9_-]{1,64}$/.test(run) && run !== "_" ? run : `h-${createHash("sha1").update(run).digest("hex").slice(0, 16)}`;
}

export const latestRef = "refs/aide/latest";
export const runsPrefix = "refs/aide/runs";
export function runRef(session: string, run: string | undefined): string {
  return `${runsPrefix}/${session}/${runKey(run)}`;
}

/** Splits a commit object into its headers and message. */
export function parseCommit(content: Buffer): { tree: string; parents: string[]; timestamp: number; message: string } {
  const text = content.toString("utf8");
  const split = text.indexOf("\n\n");
  const head = split === -1 ? text : text.slice(0, split);
  const message = split === -1 ? "" : text.slice(split + 2);
  let tree = "";
  const parents: string[] = [];
  let timestamp = 0;
  for (const line of head.split("\n")) {
    if (line.startsWith("tree ")) tree = line.slice(5);
    else if (line.startsWith("parent ")) parents.push(line.slice(7));
    else if (line.startsWith("committer ")) timestamp = Number(line.split(" ").at(-2) ?? 0);
  }
  return { tree, parents, timestamp, message };
}
