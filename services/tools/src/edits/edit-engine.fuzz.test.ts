import { describe, expect, it } from "vitest";
import { applySearchReplace } from "./apply-search-replace.js";
import { applyFilePatch } from "./apply-unified-diff.js";
import { parseSearchReplaceBlocks } from "./parse-search-replace.js";
import { parseUnifiedDiff } from "./parse-unified-diff.js";

const codes = new Set(["EDIT_NOT_FOUND", "EDIT_AMBIGUOUS", "EDIT_MALFORMED", "EDIT_LAZY_ELISION", "EDIT_ALREADY_APPLIED", "EDIT_FILE_EXISTS", "EDIT_OVERLAP", "FILE_NOT_FOUND"]);
const pieces = [
  "a",
  "b",
  "  a",
  "\tb",
  " ",
  "",
  "\u00a0",
  "e\u0301",
  "🙂",
  "\r",
  "<<<<<<< SEARCH",
  "=======",
  ">>>>>>> REPLACE",
  "<<<<<<<<<< SEARCH",
  "@@ -1,2 +1,2 @@",
  "--- a/f",
  "+++ b/f",
  "+x",
  "-a",
  " a",
  "```",
  "\\ No newline at end of file",
  "// ... existing code ...",
  "diff --git a/f b/g",
  "rename from f",
  "+++ /dev/null",
];

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function text(next: () => number, lines: number): string {
  return Array.from({ length: lines }, () => pieces[Math.floor(next() * pieces.length)]).join(next() < 0.5 ? "\n" : "\r\n") + (next() < 0.7 ? "\n" : "");
}

describe("the edit engine on random input", () => {
  it("never throws, and every refusal has a known code", () => {
    const next = random(42);
    for (let round = 0; round < 1500; round += 1) {
      const before = next() < 0.1 ? null : Buffer.from(text(next, Math.floor(next() * 12)), "utf8");
      const edit = text(next, 1 + Math.floor(next() * 14));
      const blocks = parseSearchReplaceBlocks(edit);
      if (blocks.ok) {
        const outcome = applySearchReplace(before, blocks.blocks, "f");
        if (!outcome.ok) expect(codes.has(outcome.code)).toBe(true);
      }
      const partial = applySearchReplace(before, [{ search: text(next, 2), replace: text(next, 2) }], "f", { partial: true });
      if (!partial.ok) expect(codes.has(partial.code)).toBe(true);
      const patch = parseUnifiedDiff(edit, "f");
      if (patch.ok) {
        for (const file of patch.files) {
          const outcome = applyFilePatch(before, file);
          if (!outcome.ok) expect(codes.has(outcome.code)).toBe(true);
        }
      }
    }
  });
});

describe("diffs made by a diff tool apply to exactly their result", () => {
  it("random files and random changes: every generated patch gives the new file byte for byte", async () => {
    const { createTwoFilesPatch } = await import("diff");
    const next = random(7);
    const pool = ["}", "", "return x;", "  if (a) {", "\tcall();", "x = 1", "y = 2", "// note", "  }", "end"];
    let applied = 0;
    for (let round = 0; round < 400; round += 1) {
      const oldLines = Array.from({ length: 3 + Math.floor(next() * 30) }, () => pool[Math.floor(next() * pool.length)]);
      const newLines = [...oldLines];
      for (let edits = 1 + Math.floor(next() * 4); edits > 0; edits -= 1) {
        const at = Math.floor(next() * newLines.length);
        const kind = next();
        if (kind < 0.33) newLines.splice(at, 1);
        else if (kind < 0.66) newLines.splice(at, 0, `added ${round}-${edits}`);
        else newLines[at] = `changed ${round}-${edits}`;
      }
      const oldText = oldLines.join("\n") + (next() < 0.8 ? "\n" : "");
      const newText = newLines.join("\n") + (next() < 0.8 ? "\n" : "");
      if (oldText === newText) continue;
      const patch = parseUnifiedDiff(createTwoFilesPatch("a/f", "b/f", oldText, newText), "f");
      expect(patch.ok).toBe(true);
      if (!patch.ok) continue;
      const outcome = applyFilePatch(Buffer.from(oldText), patch.files[0]);
      if (outcome.ok) {
        applied += 1;
        expect(outcome.after.toString("utf8")).toBe(newText);
      }
    }
    expect(applied).toBeGreaterThan(300);
  });
});
