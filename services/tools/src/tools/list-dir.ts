import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { booleanArg, integerArg, pathArg } from "../framework/argument-types.js";
import { escapeInvisible } from "../files/invisible-characters.js";
import type { Dirent } from "node:fs";
import type { DirectoryHandle } from "../jail/directory-handle.js";

/** Never listed: version-control internals and the agent's own state. */
const hiddenNames = new Set([".git", ".aide"]);
/** Listed but not descended into when recursive. */
const notDescended = new Set(["node_modules", "__pycache__", ".venv", "venv", "dist", "build", "target", ".next", ".cache"]);

export const listDirTool = defineTool({
  name: "list_dir",
  description:
    "List the entries of a directory (directories end with `/`). Set `recursive` to list the tree below it (dependency and build folders are shown but not expanded).",
  parameters: z.strictObject({
    path: pathArg().default(".").describe("Directory relative to the workspace root; default the root"),
    recursive: booleanArg().default(false).describe("List everything below, not just the direct entries"),
    max_entries: integerArg({ min: 1, max: 2000 }).default(400).describe("Stop after this many entries"),
  }),
  aliases: { depth: "recursive", limit: "max_entries" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  async execute(args, context) {
    const opened = await context.workspace.openDirectory(args.path);
    const target = { relative: opened.relative };
    if (opened.kind === "missing") return { isError: true, output: `No directory at ${target.relative}.`, metadata: { error_code: "FILE_NOT_FOUND" } };
    if (opened.kind === "not-directory") return { isError: true, output: `${target.relative} is a file, not a directory; use read_file.`, metadata: { error_code: "NOT_A_DIRECTORY" } };
    const entries: string[] = [];
    let capped = false;
    // Each directory below is opened again from the root without following links (the jail's walk).
    const queue: Array<{ relative: string; prefix: string }> = [];
    let directory: DirectoryHandle | null = opened.handle;
    let prefix = "";
    while (directory !== null && !capped) {
      let dirents: Dirent[];
      try {
        dirents = directory.entries();
      } catch {
        dirents = [];
      } finally {
        directory.close();
      }
      const here = directory.relative;
      dirents.sort((a, b) => a.name.localeCompare(b.name));
      for (const dirent of dirents) {
        if (hiddenNames.has(dirent.name)) continue;
        if (entries.length >= args.max_entries) {
          capped = true;
          break;
        }
        const name = prefix + dirent.name;
        if (dirent.isDirectory()) {
          entries.push(`${name}/`);
          if (args.recursive && !notDescended.has(dirent.name)) queue.push({ relative: here === "." ? dirent.name : `${here}/${dirent.name}`, prefix: `${name}/` });
        } else if (dirent.isSymbolicLink()) entries.push(`${name}@`);
        else entries.push(name);
      }
      directory = null;
      while (directory === null && !capped && queue.length > 0 && !context.signal.aborted) {
        const next = queue.shift()!;
        directory = context.workspace.reopenDirectory(next.relative);
        prefix = next.prefix;
      }
    }
    const where = target.relative === "." ? "the workspace root" : target.relative;
    if (entries.length === 0) return { output: `${where} is empty.`, metadata: { path: target.relative, entries: 0 } };
    const tail = capped ? `\n\n(Stopped at ${args.max_entries} entries; list a subdirectory or raise max_entries.)` : "";
    return { output: escapeInvisible(entries.join("\n")) + tail, metadata: { path: target.relative, entries: entries.length, capped } };
  },
});
