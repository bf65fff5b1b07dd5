import { createTwoFilesPatch } from "diff";
import type { ToolPreview, ToolPreviewRequest } from "@aide/contracts";
import type { CallDependencies } from "./call-dependencies.js";
import { isModelFacing, prepareCall } from "./prepare-call.js";
import type { FileChange } from "./tool-types.js";
import { canonicalJson, sha256Hex } from "../files/digest.js";
import { protectedFlags, protectedFlagsForChanges, type ProtectedContext } from "../files/protected-paths.js";
import type { GitDirectoryScan } from "@aide/runtime";
import { renderForModel, scanInvisible } from "../files/invisible-characters.js";
import { invisibleInAddedLines } from "../files/invisible-in-change.js";
import { suspectsNetwork } from "../sandbox/network-suspicion.js";
import { describeFileSystemError, isDiskFull, isFileSystemError } from "./file-system-errors.js";

/** Diffing is CPU work on the event loop: bounded, with a whole-file replacement as the fallback. */
const diffTimeoutMs = 2000;

function wholeFileDiff(change: FileChange, before: string, after: string): string {
  const oldLines = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const newLines = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  const header = `--- ${change.before === null ? "/dev/null" : `a/${change.path}`}\n+++ b/${change.path}\n@@ -1,${oldLines.length} +1,${newLines.length} @@\n`;
  return header + [...oldLines.map((l) => `-${l}`), ...newLines.map((l) => `+${l}`)].join("\n") + "\n";
}

function diffOf(change: FileChange): string {
  const before = change.before === null ? "" : change.before.toString("utf8");
  const after = change.after.toString("utf8");
  const patch = createTwoFilesPatch(change.before === null ? "/dev/null" : `a/${change.path}`, `b/${change.path}`, before, after, undefined, undefined, { context: 3, timeout: diffTimeoutMs });
  return patch ?? wholeFileDiff(change, before, after);
}

/** What a person approves, in words first for a deletion or rename, then the diff. */
function describeChanges(changes: readonly FileChange[]): string {
  const renamedAway = new Set(changes.flatMap((c) => (c.renamedFrom !== undefined ? [c.renamedFrom] : [])));
  return changes
    .map((change) => {
      if (change.operation === "delete") {
        if (renamedAway.has(change.path)) return "";
        const before = change.before?.toString("utf8") ?? "";
        return `delete ${change.path}\n` + (createTwoFilesPatch(`a/${change.path}`, "/dev/null", before, "", undefined, undefined, { context: 3, timeout: diffTimeoutMs }) ?? "");
      }
      if (change.renamedFrom !== undefined) {
        const source = changes.find((c) => c.path === change.renamedFrom);
        const before = source?.before?.toString("utf8") ?? "";
        const after = change.after.toString("utf8");
        const heading = `rename ${change.renamedFrom} → ${change.path}\n`;
        if (before === after) return `${heading}(content unchanged)\n`;
        return heading + (createTwoFilesPatch(`a/${change.renamedFrom}`, `b/${change.path}`, before, after, undefined, undefined, { context: 3, timeout: diffTimeoutMs }) ?? "");
      }
      return diffOf(change);
    })
    .join("");
}

function errorCodeOf(metadata: Record<string, unknown> | undefined): { error_code?: string } {
  const code = metadata?.["error_code"];
  return typeof code === "string" ? { error_code: code } : {};
}

/** The repositories of the workspace, so a `gitdir: .gitstore` repository's hooks are protected too. */
async function protectedContext(context: { sandbox: { gitDirectories(root: string): Promise<GitDirectoryScan> }; workspace: { root: string } }): Promise<ProtectedContext> {
  const scan = await context.sandbox.gitDirectories(context.workspace.root);
  return { gitDirectories: scan.directories.map((found) => found.relative).filter((relative) => relative !== "") };
}

/**
 * One `agent.tools.preview`: the exact diff or command text a call would produce, with the flags an
 * approval must show, and the digests the decision is bound to. Nothing is written or run.
 */
export async function previewCall(dependencies: CallDependencies, request: ToolPreviewRequest, serviceSignal: AbortSignal): Promise<ToolPreview> {
  const preview = await computePreview(dependencies, request, serviceSignal);
  // A refusal's text reaches the model (it may quote file content): rendered like every tool output.
  return preview.error === undefined ? preview : { ...preview, error: renderForModel(preview.error).text };
}

async function computePreview(dependencies: CallDependencies, request: ToolPreviewRequest, serviceSignal: AbortSignal): Promise<ToolPreview> {
  const base = { call_id: request.call.id, name: request.call.name };
  const prepared = await prepareCall(dependencies, request, serviceSignal);
  if (!prepared.ok) {
    return {
      ...base,
      kind: "other",
      mutating: false,
      args_digest: sha256Hex(canonicalJson(request.call.arguments)),
      error: prepared.output,
      error_code: prepared.errorCode,
      notices: prepared.notices,
      paths: [],
      protected: [],
      invisible: [],
      network_suspected: false,
      file_digests: {},
    };
  }
  const { tool, args, context } = prepared;
  const preview: ToolPreview = {
    ...base,
    kind: tool.kind,
    mutating: !tool.readOnly,
    args_digest: sha256Hex(canonicalJson(args)),
    notices: prepared.notices,
    paths: [],
    protected: [],
    invisible: [],
    network_suspected: false,
    file_digests: {},
  };
  try {
    if (tool.plan !== undefined) {
      const plan = await tool.plan(args, context);
      if (!plan.ok) return { ...preview, error: plan.error, ...errorCodeOf(plan.metadata) };
      preview.diff = describeChanges(plan.changes);
      preview.paths = plan.changes.map((c) => c.path);
      preview.protected = protectedFlagsForChanges(plan.changes, await protectedContext(context));
      preview.invisible = plan.changes.flatMap(invisibleInAddedLines);
      preview.file_digests = Object.fromEntries(plan.changes.map((c) => [c.path, c.before === null ? "" : sha256Hex(c.before)]));
    } else if (tool.describeCommand !== undefined) {
      const described = await tool.describeCommand(args, context);
      preview.command = described.command;
      preview.paths = described.paths ?? [];
      preview.network_suspected = suspectsNetwork(described.command);
      preview.invisible = scanInvisible(described.command);
      preview.protected = protectedFlags(preview.paths, await protectedContext(context));
      if (described.scripts && described.scripts.length > 0) {
        preview.scripts = described.scripts;
        if (described.scriptsDigest !== undefined) preview.scripts_digest = described.scriptsDigest;
        if (described.alternative !== undefined) preview.alternative = described.alternative;
        preview.invisible.push(...described.scripts.flatMap((script) => scanInvisible(script.text, script.source)));
      }
    }
  } catch (error) {
    if (isFileSystemError(error)) return { ...preview, error: describeFileSystemError(error, context.workspace.root), error_code: isDiskFull(error) ? "DISK_FULL" : "TOOL_FAILED" };
    if (!isModelFacing(error)) throw error;
    return { ...preview, error: error.message, error_code: error.code };
  } finally {
    prepared.dispose();
  }
  return preview;
}
