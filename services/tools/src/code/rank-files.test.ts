import { describe, expect, it } from "vitest";
import { rankFiles } from "./rank-files.js";
import { renderCodeMap } from "./render-code-map.js";
import type { FileTags } from "./code-definition.js";

const tags = (defines: string[], uses: string[]): FileTags => ({
  language: "typescript",
  definitions: defines.map((name, index) => ({ name, kind: "function", startLine: index * 3 + 1, endLine: index * 3 + 2, signature: `function ${name}()` })),
  references: uses,
});

const files = new Map<string, FileTags>([
  ["core.ts", tags(["coreHelper"], [])],
  ["leaf.ts", tags(["leafOnly"], [])],
  ["a.ts", tags(["runA"], ["coreHelper"])],
  ["b.ts", tags(["runB"], ["coreHelper", "leafOnly"])],
  ["c.ts", tags(["runC"], ["coreHelper"])],
]);

describe("rankFiles", () => {
  it("puts the most referenced file first without a focus", () => {
    expect(rankFiles(files, { paths: [], identifiers: [] })[0].path).toBe("core.ts");
  });

  it("puts the file defining a focus identifier first, then what it leads to", () => {
    const ranked = rankFiles(files, { paths: [], identifiers: ["leafOnly"] });
    expect(ranked[0]).toMatchObject({ path: "leaf.ts", focused: true });
    expect(rankFiles(files, { paths: ["b.ts"], identifiers: [] })[0].path).toBe("b.ts");
  });

  it("renders whole files only, within the budget", () => {
    const ranked = rankFiles(files, { paths: [], identifiers: [] });
    const map = renderCodeMap(ranked, files, 12);
    expect(map.tokens).toBeLessThanOrEqual(12);
    expect(map.text.startsWith("core.ts\n  1: function coreHelper()")).toBe(true);
    expect(map.omittedFiles).toBe(files.size - map.files.length);
  });
});
