import { createHash } from "node:crypto";
import { posix } from "node:path";
import { AideError, instructionFileNames, type InstructionFile, type ToolInstructionsRequest } from "@aide/contracts";
import { openWorkspace } from "../jail/workspace.js";
import { looksBinary } from "../files/describe-binary.js";
import { sha256Hex } from "../files/digest.js";

const defaultMaxBytes = 256 * 1024;

/** Codes that mean "no usable file here": a link out of the workspace, a denied or odd path. */
const skippedCodes = new Set(["PATH_OUTSIDE_WORKSPACE", "PATH_DENIED", "PATH_INVALID", "FILE_NOT_FOUND"]);

/**
 * `agent.tools.instructions`: for each folder, the first instruction file present (in
 * `instructionFileNames` order), read through the jail like every tool's read, so a symlink that
 * leaves the workspace is skipped, never followed. The digest is of the bytes; the text is the
 * raw UTF-8 (the orchestrator renders it for the person and the model).
 */
export async function readInstructionFiles(request: ToolInstructionsRequest, workspaceRoots: readonly string[]): Promise<{ files: InstructionFile[] }> {
  const workspace = await openWorkspace(request.workspace, workspaceRoots);
  const maxBytes = request.max_bytes ?? defaultMaxBytes;
  const files: InstructionFile[] = [];
  const seen = new Set<string>();
  for (const raw of request.folders) {
    const folder = posix
      .normalize(raw === "" ? "." : raw)
      .replace(/^\.\/?/, "")
      .replace(/\/$/, "");
    if (seen.has(folder) || folder.startsWith("..") || posix.isAbsolute(folder)) continue;
    seen.add(folder);
    for (const name of instructionFileNames) {
      const path = folder === "" ? name : `${folder}/${name}`;
      const found = await readOne(workspace, path, maxBytes);
      if (found === null) continue;
      files.push({ folder, path, ...found });
      break;
    }
  }
  return { files };
}

async function readOne(workspace: Awaited<ReturnType<typeof openWorkspace>>, path: string, maxBytes: number): Promise<Omit<InstructionFile, "folder" | "path"> | null> {
  let opened;
  try {
    opened = await workspace.openFile(path);
  } catch (error) {
    if (error instanceof AideError && skippedCodes.has(error.code)) return null;
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR" || (error as NodeJS.ErrnoException).code === "ELOOP") return null;
    throw error;
  }
  if (opened.kind !== "file") return null;
  try {
    if (opened.stats.size > maxBytes) {
      // Too large to show: reported with its digest so the person can still be told, never loaded.
      const hash = createHash("sha256");
      for await (const chunk of opened.handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
      return { bytes: opened.stats.size, digest: hash.digest("hex") };
    }
    const bytes = await opened.handle.readFile();
    const digest = sha256Hex(bytes);
    if (looksBinary(bytes.subarray(0, 8192))) return { bytes: bytes.length, digest };
    return { bytes: bytes.length, digest, text: bytes.toString("utf8") };
  } finally {
    await opened.handle.close();
  }
}
