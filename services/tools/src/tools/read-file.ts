import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg, pathArg } from "../framework/argument-types.js";
import { readWindow, type ShownLine } from "../files/read-window.js";
import { describeBinary, looksBinary } from "../files/describe-binary.js";
import { scanInvisible, type InvisibleFlag } from "../files/invisible-characters.js";
import { renderFileText } from "../files/render-file-text.js";
import { missingPathHint } from "../files/missing-path-hint.js";
import { continuationNote, cutLineNotes, invalidUtf8Note, invisibleNote } from "./read-file-notes.js";

const defaultLimit = 100;
const atFileStart = (line: ShownLine) => line.number === 1 && line.start === 0;
const maxLineChars = 2000;

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file with numbered lines, about 100 lines at a time. Use `offset` (1-based line) and `limit` to see other parts, and `char_offset` to read on in a line longer than 2000 characters; the result says how to continue.",
  parameters: z.strictObject({
    path: pathArg().describe("File path relative to the workspace root"),
    offset: integerArg({ min: 1 }).optional().describe("First line to show (1-based); default 1"),
    limit: integerArg({ min: 1, max: 2000 }).optional().describe("How many lines to show; default 100, or 1 with char_offset"),
    char_offset: integerArg({ min: 0 }).optional().describe("Start the first line shown at this character (0-based), to page through a long line; the result gives the next one"),
  }),
  aliases: { line: "offset", start: "offset", lines: "limit", count: "limit", column: "char_offset" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  async execute(args, context) {
    const opened = await context.workspace.openFile(args.path);
    if (opened.kind === "missing") {
      const hint = await missingPathHint(context.workspace, opened.relative, context.signal);
      return { isError: true, output: `No file at ${opened.relative}.${hint === "" ? "" : ` ${hint}`}`, metadata: { error_code: "FILE_NOT_FOUND" } };
    }
    if (opened.kind === "directory") return { isError: true, output: `${opened.relative} is a directory; use list_dir to see its entries.` };
    if (opened.kind === "other") return { isError: true, output: `${opened.relative} is not a regular file.` };
    const { handle, relative, stats } = opened;
    try {
      const head = Buffer.alloc(8192);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      if (looksBinary(head.subarray(0, bytesRead))) {
        return { output: describeBinary(head, stats.size), metadata: { path: relative, binary: true, size_bytes: stats.size } };
      }
      const offset = args.offset ?? 1;
      const charOffset = args.char_offset ?? 0;
      const limit = args.limit ?? (args.char_offset !== undefined ? 1 : defaultLimit);
      const window = await readWindow(handle, { offset, limit, maxLineChars, charOffset, countLimitBytes: 64 * 1024 * 1024, signal: context.signal });
      const first = window.lines[0];
      const nextCharOffset = first?.cut ? first.start + first.text.length : undefined;
      const invisible: InvisibleFlag[] = window.lines.flatMap((line) => scanInvisible(atFileStart(line) ? line.text : ` ${line.text}`).map((flag) => ({ ...flag, line: line.number }))).slice(0, 50);
      const metadata = {
        path: relative,
        offset,
        ...(args.char_offset !== undefined ? { char_offset: charOffset } : {}),
        lines_shown: window.lines.length,
        total_lines: window.totalLines,
        size_bytes: window.sizeBytes,
        ...(nextCharOffset !== undefined ? { next_char_offset: nextCharOffset } : {}),
        ...(window.invalidUtf8.count > 0
          ? { invalid_utf8: { count: window.invalidUtf8.count, first_line: window.invalidUtf8.first?.line, first_byte_offset: window.invalidUtf8.first?.byteOffset } }
          : {}),
        ...(invisible.length > 0 ? { invisible } : {}),
      };
      if (window.totalLines === 0) return { output: `${relative} is empty.`, metadata };
      if (window.lines.length === 0) {
        return { isError: true, output: `${relative} has ${window.totalLines ?? "fewer"} lines; offset ${offset} is past the end.`, metadata };
      }
      if (first.start > 0 && first.length !== null && first.start >= first.length) {
        return { isError: true, output: `Line ${offset} of ${relative} has ${first.length} characters; char_offset ${charOffset} is past its end.`, metadata };
      }
      const width = String(window.lines[window.lines.length - 1].number).length;
      const body = window.lines.map((line) => `${String(line.number).padStart(Math.max(width, 4))}\t${renderFileText(line.text, atFileStart(line))}`).join("\n");
      const notes: string[] = [];
      if (first.start > 0) notes.push(`Line ${offset} is shown from character ${first.start}.`);
      notes.push(...cutLineNotes(window.lines));
      for (const note of [invalidUtf8Note(window.invalidUtf8), invisibleNote(invisible), continuationNote(window, offset, limit)]) if (note !== null) notes.push(note);
      return { output: notes.length > 0 ? `${body}\n\n(${notes.join(" ")})` : body, metadata };
    } finally {
      await handle.close();
    }
  },
});
