import { openNoFollow } from "../files/open-no-follow.js";
import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg, pathArg } from "../framework/argument-types.js";
import { readWindow } from "../files/read-window.js";
import { describeBinary, looksBinary } from "../files/describe-binary.js";
import { escapeInvisible } from "../files/invisible-characters.js";

const defaultLimit = 100;
const maxLineChars = 2000;

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file with numbered lines, about 100 lines at a time. Use `offset` (1-based line) and `limit` to see other parts; the result says how to continue.",
  parameters: z.strictObject({
    path: pathArg().describe("File path relative to the workspace root"),
    offset: integerArg({ min: 1 }).optional().describe("First line to show (1-based); default 1"),
    limit: integerArg({ min: 1, max: 2000 }).optional().describe("How many lines to show; default 100"),
  }),
  aliases: { line: "offset", start: "offset", lines: "limit", count: "limit" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  async execute(args, context) {
    const target = await context.workspace.resolve(args.path);
    if (target.stats === null) return { isError: true, output: `No file at ${target.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
    if (target.stats.isDirectory()) return { isError: true, output: `${target.relative} is a directory; use list_dir to see its entries.` };
    if (!target.stats.isFile()) return { isError: true, output: `${target.relative} is not a regular file.` };
    const head = Buffer.alloc(8192);
    const handle = await openNoFollow(target.absolute);
    const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
    if (looksBinary(head.subarray(0, bytesRead))) {
      return { output: describeBinary(head, target.stats.size), metadata: { path: target.relative, binary: true, size_bytes: target.stats.size } };
    }
    const offset = args.offset ?? 1;
    const limit = args.limit ?? defaultLimit;
    const window = await readWindow(target.absolute, { offset, limit, maxLineChars, countLimitBytes: 64 * 1024 * 1024, signal: context.signal });
    const metadata = { path: target.relative, offset, lines_shown: window.lines.length, total_lines: window.totalLines, size_bytes: window.sizeBytes };
    if (window.totalLines === 0) return { output: `${target.relative} is empty.`, metadata };
    if (window.lines.length === 0) {
      return { isError: true, output: `${target.relative} has ${window.totalLines ?? "fewer"} lines; offset ${offset} is past the end.`, metadata };
    }
    const width = String(offset + window.lines.length - 1).length;
    const body = window.lines.map((line, i) => `${String(offset + i).padStart(Math.max(width, 4))}\t${escapeInvisible(line)}`).join("\n");
    const lastShown = offset + window.lines.length - 1;
    const notes: string[] = [];
    if (window.cutLines > 0) notes.push(`${window.cutLines} long line(s) were cut at ${maxLineChars} characters.`);
    const total = window.totalLines;
    if (total === null || lastShown < total) {
      notes.push(`Showing lines ${offset}-${lastShown}${total === null ? " (more follow)" : ` of ${total}`}. Use offset=${lastShown + 1} to continue.`);
    } else if (offset > 1 || total > limit) {
      notes.push(`Showing lines ${offset}-${lastShown} of ${total} (end of file).`);
    }
    return { output: notes.length > 0 ? `${body}\n\n(${notes.join(" ")})` : body, metadata };
  },
});
