import fc from "fast-check";
import { createTwoFilesPatch } from "diff";
import { applyFilePatch, applySearchReplace, parseSearchReplaceBlocks, parseUnifiedDiff } from "@aide/tools";
import { claim, type FuzzTarget } from "./fuzz-runner.js";

/** The codes an edit refusal may carry; anything else (or a throw) is a failure. */
const refusalCodes = new Set(["EDIT_NOT_FOUND", "EDIT_AMBIGUOUS", "EDIT_MALFORMED", "EDIT_LAZY_ELISION", "EDIT_ALREADY_APPLIED", "EDIT_FILE_EXISTS", "EDIT_OVERLAP", "FILE_NOT_FOUND"]);

/**
 * Lines that real files hold and that trip edit readers: blank and whitespace-only lines,
 * indentation variants of one line, a trailing space, tabs, a Markdown fence (bare and indented),
 * a list item and a diff-looking line, combining marks, a lazy-elision comment, an `@@`.
 */
const linePool = [
  "",
  " ",
  "a",
  "  a",
  "\ta",
  "a ",
  "b",
  "x = 1",
  "  x = 1",
  "x = 1  ",
  "}",
  "  }",
  "return x;",
  "```",
  " ```",
  "```ts",
  "- item",
  "+ more",
  "-- sql",
  "++i;",
  "e\u0301",
  "\u00e9",
  "caf\u00e9",
  "// ... existing code ...",
  "@@ note",
  "\\ back",
  "# Title",
  "<div>",
  "\u00a0",
  "🙂",
];

const lineArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...linePool) }, { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: "grapheme" }).filter((s) => !/[\r\n]/.test(s)) });
const fileArb = fc.array(lineArb, { minLength: 1, maxLength: 24 });

function join(lines: readonly string[], eol: string, finalNewline: boolean): string {
  return lines.length === 0 ? "" : lines.join(eol) + (finalNewline ? eol : "");
}

/** Applied exactly as intended, or refused with a known code; `undefined` intended: must be refused. */
function check(outcome: { ok: true; after: Buffer } | { ok: false; code: string; error: string }, intended: string | undefined, what: string): void {
  if (!outcome.ok) {
    if (!refusalCodes.has(outcome.code)) throw new Error(`${what}: refused with unknown code ${outcome.code}`);
    return;
  }
  if (intended === undefined) throw new Error(`${what}: applied (${JSON.stringify(outcome.after.toString("utf8"))}) where it must be refused`);
  const after = outcome.after.toString("utf8");
  if (after !== intended) throw new Error(`${what}: applied wrongly: ${JSON.stringify(after)} instead of ${JSON.stringify(intended)}`);
}

/**
 * What a whole-line SEARCH/REPLACE means, by the format's contract (aider's, which models are
 * trained on): the first place the SEARCH lines stand exactly is replaced; a SEARCH of blank lines
 * only is the create form, which writes REPLACE as the whole file when the file has no content
 * (and is refused when it has). Undefined: the edit must be refused.
 */
function intendedLineEdit(lines: readonly string[], eol: string, search: readonly string[], replacement: readonly string[]): string | undefined {
  if (search.every((line) => line.trim() === "")) {
    return lines.every((line) => line.trim() === "") ? join(replacement, "\n", true) : undefined;
  }
  const first = lines.findIndex((_, start) => search.every((line, k) => lines[start + k] === line));
  return join([...lines.slice(0, first), ...replacement, ...lines.slice(first + search.length)], eol, true);
}

/** A whole-line SEARCH/REPLACE: lines [start, start+count) of the file replaced by `replacement`. */
const lineEditArb = fc
  .record({ lines: fileArb, crlf: fc.boolean(), start: fc.nat(), count: fc.integer({ min: 1, max: 6 }), replacement: fc.array(lineArb, { maxLength: 5 }) })
  .map(({ lines, crlf, start, count, replacement }) => {
    const at = start % lines.length;
    const taken = Math.min(count, lines.length - at);
    return { lines, eol: crlf ? "\r\n" : "\n", at, search: lines.slice(at, at + taken), replacement };
  });

const searchReplaceTarget: FuzzTarget = {
  name: "search-replace",
  subject: "parseSearchReplaceBlocks + applySearchReplace (services/tools/src/edits)",
  properties: [
    claim(
      "whole-line block",
      "a block whose SEARCH is lines of the file applies exactly there or changes nothing with a refusal code",
      fc.property(lineEditArb, ({ lines, eol, search, replacement }) => {
        const before = Buffer.from(join(lines, eol, true));
        const intended = intendedLineEdit(lines, eol, search, replacement);
        const block = { search: search.join("\n") + "\n", replace: replacement.length > 0 ? replacement.join("\n") + "\n" : "" };
        check(applySearchReplace(before, [block], "f.txt"), intended, "block");
      }),
    ),
    claim(
      "block text",
      "the same change written as a SEARCH/REPLACE block in prose and a fence, parsed then applied: exact or nothing",
      fc.property(lineEditArb, fc.constantFrom("", "Here:\n", "```\n", "```python\n"), ({ lines, eol, search, replacement }, before) => {
        const file = Buffer.from(join(lines, eol, true));
        const intended = intendedLineEdit(lines, eol, search, replacement);
        const text = `${before}<<<<<<< SEARCH\n${search.map((l) => l + "\n").join("")}=======\n${replacement.map((l) => l + "\n").join("")}>>>>>>> REPLACE\n${before.startsWith("```") ? "```\n" : ""}`;
        const parsed = parseSearchReplaceBlocks(text);
        if (!parsed.ok) return;
        check(applySearchReplace(file, parsed.blocks, "f.txt"), intended, "block text");
      }),
    ),
    claim(
      "search/replace arguments",
      "exact text inside lines that occurs once in the file is replaced exactly there, or nothing changes",
      fc.property(
        fileArb,
        fc.nat(),
        fc.integer({ min: 1, max: 30 }),
        fc.string({ maxLength: 12, unit: fc.constantFrom("a", "b", " ", "\n", "\t", "x", "}", "é") }),
        (lines, start, length, replace) => {
          const text = join(lines, "\n", true);
          const from = start % text.length;
          const search = text.slice(from, from + length);
          if (search.trim() === "" || text.indexOf(search) !== text.lastIndexOf(search)) return;
          // The contract: SEARCH that is whole lines of the file (a final newline optional) is a line
          // edit, REPLACE read as lines; other text is replaced exactly where it stands.
          const body = search.endsWith("\n") ? search.slice(0, -1) : search;
          const wholeLines = (from === 0 || text[from - 1] === "\n") && text[from + body.length] === "\n";
          const replaced = replace === "" ? "" : replace.endsWith("\n") ? replace : replace + "\n";
          const intended = wholeLines ? text.slice(0, from) + replaced + text.slice(from + body.length + 1) : text.slice(0, from) + replace + text.slice(from + search.length);
          check(applySearchReplace(Buffer.from(text), [{ search, replace }], "f.txt", { partial: true }), intended, "partial");
        },
      ),
    ),
    claim(
      "arbitrary input",
      "any text as blocks against any file: no throw, and a refusal carries a known code",
      fc.property(
        fc.option(fc.string({ maxLength: 200, unit: "binary" })),
        fc.array(fc.oneof(lineArb, fc.constantFrom("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<<<<<<< SEARCH", "```")), { maxLength: 16 }),
        (file, blockLines) => {
          const parsed = parseSearchReplaceBlocks(blockLines.join("\n"));
          if (!parsed.ok) return;
          const outcome = applySearchReplace(file === null ? null : Buffer.from(file), parsed.blocks, "f.txt");
          if (!outcome.ok && !refusalCodes.has(outcome.code)) throw new Error(`unknown code ${outcome.code}`);
        },
      ),
    ),
  ],
};

/** How a model wraps or bends a diff; each must still apply exactly or be refused. */
type DiffVariant = "plain" | "fenced" | "no-headers" | "wrong-numbers" | "slipped-context";

function bend(patch: string, variant: DiffVariant): string {
  const lines = patch.split("\n");
  switch (variant) {
    case "plain":
      return patch;
    case "fenced":
      return "Here is the change:\n\n```diff\n" + patch + "```\n\nThat renames it.\n";
    case "no-headers":
      return lines.filter((l) => !l.startsWith("--- a/f.txt") && !l.startsWith("+++ b/f.txt") && !l.startsWith("====")).join("\n");
    case "wrong-numbers":
      return lines.map((l) => l.replace(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/, "@@ -40,9 +40,9 @@")).join("\n");
    case "slipped-context":
      // A context line that lost its leading space, when its text cannot be read as anything else
      // (a '-', '+', '@', '\', fence or blank start would make it another kind of line: ambiguous input).
      return lines.map((l) => (/^ [^\s\-+@\\`]/.test(l) ? l.slice(1) : l)).join("\n");
    default: {
      const unreachable: never = variant;
      return unreachable;
    }
  }
}

const diffChangeArb = fc
  .record({
    old: fileArb,
    edits: fc.array(fc.record({ at: fc.nat(), kind: fc.constantFrom("delete", "insert", "change"), line: lineArb }), { minLength: 1, maxLength: 4 }),
    oldNewline: fc.boolean(),
    newNewline: fc.boolean(),
    context: fc.integer({ min: 0, max: 4 }),
    variant: fc.constantFrom<DiffVariant>("plain", "fenced", "no-headers", "wrong-numbers", "slipped-context"),
  })
  .map(({ old, edits, oldNewline, newNewline, context, variant }) => {
    const next = [...old];
    for (const edit of edits) {
      const at = edit.at % (next.length + 1);
      if (edit.kind === "delete" && next.length > 1) next.splice(Math.min(at, next.length - 1), 1);
      else if (edit.kind === "insert" || next.length === 0) next.splice(at, 0, edit.line);
      else next[Math.min(at, next.length - 1)] = edit.line;
    }
    return { before: join(old, "\n", oldNewline || old.at(-1) === ""), after: join(next, "\n", newNewline || next.at(-1) === ""), context, variant };
  });

const unifiedDiffTarget: FuzzTarget = {
  name: "unified-diff",
  subject: "parseUnifiedDiff + applyFilePatch (services/tools/src/edits)",
  properties: [
    claim(
      "diff-tool patch, bent as models bend it",
      "a patch made by a diff tool (plain, fenced with prose, without headers, with wrong @@ numbers, with context lines that lost their space) gives the new file byte for byte, or nothing changes with a refusal code",
      fc.property(diffChangeArb, ({ before, after, context, variant }) => {
        const patch = createTwoFilesPatch("a/f.txt", "b/f.txt", before, after, undefined, undefined, { context });
        const parsed = parseUnifiedDiff(bend(patch, variant), "f.txt");
        if (!parsed.ok) return;
        if (parsed.files.length !== 1) throw new Error(`${parsed.files.length} files read from a one-file patch`);
        check(applyFilePatch(Buffer.from(before), parsed.files[0]), after, variant);
      }),
    ),
    claim(
      "arbitrary input",
      "any text as a diff against any file: no throw, and a refusal carries a known code",
      fc.property(
        fc.option(fc.string({ maxLength: 200, unit: "binary" })),
        fc.array(
          fc.oneof(
            lineArb,
            fc.constantFrom(
              "@@ -1,2 +1,2 @@",
              "@@",
              "--- a/f",
              "+++ b/f",
              "--- /dev/null",
              "+++ /dev/null",
              "diff --git a/f b/g",
              "rename from f",
              "rename to g",
              "\\ No newline at end of file",
              "```",
              "```diff",
            ),
          ),
          { maxLength: 16 },
        ),
        fc.array(fc.constantFrom("", " ", "-", "+"), { minLength: 16, maxLength: 16 }),
        (file, lines, prefixes) => {
          const parsed = parseUnifiedDiff(lines.map((l, i) => prefixes[i] + l).join("\n"), "f");
          if (!parsed.ok) return;
          for (const patch of parsed.files) {
            const outcome = applyFilePatch(file === null ? null : Buffer.from(file), patch);
            if (!outcome.ok && !refusalCodes.has(outcome.code)) throw new Error(`unknown code ${outcome.code}`);
          }
        },
      ),
    ),
  ],
};

export const editTargets: FuzzTarget[] = [searchReplaceTarget, unifiedDiffTarget];
