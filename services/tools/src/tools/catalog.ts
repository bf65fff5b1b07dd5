import type { AnyTool } from "../framework/tool-types.js";
import { readFileTool } from "./read-file.js";
import { listDirTool } from "./list-dir.js";
import { writeFileTool } from "./write-file.js";
import { replaceInFileTool } from "./replace-in-file.js";
import { applyPatchTool } from "./apply-patch.js";

/** Every tool the service executes, in the order the catalog shows them. */
export function allTools(): AnyTool[] {
  return [readFileTool, listDirTool, writeFileTool, replaceInFileTool, applyPatchTool];
}
