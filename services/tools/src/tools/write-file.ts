import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { pathArg } from "../framework/argument-types.js";
import { decodeDocument } from "../edits/text-document.js";
import { countLines, fileChange, loadTarget } from "./file-plan-helpers.js";

/** A rewrite keeps the file's conventions: CRLF stays CRLF and a BOM stays. */
function keepConventions(before: Buffer | null, content: string): { data: Buffer; notes: string[] } {
  const notes: string[] = [];
  if (before === null || before.length === 0) return { data: Buffer.from(content, "utf8"), notes };
  const existing = decodeDocument(before);
  let text = content;
  if (existing.eol === "\r\n" && !text.includes("\r\n") && text.includes("\n")) {
    text = text.replace(/\n/g, "\r\n");
    notes.push("kept the file's CRLF line endings");
  }
  if (existing.bom && !text.startsWith("\uFEFF")) {
    text = "\uFEFF" + text;
    notes.push("kept the file's byte-order mark");
  }
  return { data: Buffer.from(text, "utf8"), notes };
}

export const writeFileTool = defineTool({
  name: "write_file",
  description: "Create a file or replace its whole content. Prefer replace_in_file for changing part of an existing file.",
  parameters: z.strictObject({
    path: pathArg().describe("File path relative to the workspace root; missing directories are created"),
    content: z
      .string()
      .max(4 * 1024 * 1024)
      .describe("The complete new content of the file"),
  }),
  kind: "write",
  readOnly: false,
  parallelSafe: false,
  async plan(args, context) {
    const loaded = await loadTarget(context, args.path);
    if (!loaded.ok) return { ok: false, error: loaded.error };
    const { data, notes } = keepConventions(loaded.before, args.content);
    if (loaded.before !== null && data.equals(loaded.before)) return { ok: false, error: `${loaded.target.relative} already has exactly this content; nothing was written.` };
    const verb = loaded.before === null ? "Created" : "Wrote";
    const summary = `${verb} ${loaded.target.relative} (${countLines(data)} lines, ${data.length} bytes)${notes.length > 0 ? `; ${notes.join(", ")}` : ""}.`;
    return { ok: true, changes: [fileChange(loaded.target, loaded.before, data)], summary, metadata: { created: loaded.before === null } };
  },
});
