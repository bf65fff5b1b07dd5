import { describe, expect, it } from "vitest";
import { searchNote, withholdSecretDiffSections, withholdSecretSearchHits } from "./withhold-secret-output.js";

const outcome = (output: string, metadata: Record<string, unknown> = {}) => ({ is_error: false, output, metadata, changed_paths: [], notices: [] });

describe("secret files in search results and diffs", () => {
  it("drops secret files from the list and recomputes the totals", () => {
    const result = withholdSecretSearchHits(outcome("5 matches in 3 files:\n.env (3)\nsrc/a.js (1)\nconfig/secrets.yaml (1)", { files: 3, matches: 5, capped: false }));
    expect(result.output).toBe(`1 match in 1 file:\nsrc/a.js (1)\n${searchNote}`);
    expect(result.metadata).toMatchObject({ files: 1, matches: 1 });
  });
  it("says the same note whether or not anything was dropped (no oracle on secret content)", () => {
    const only = withholdSecretSearchHits(outcome("1 match in 1 file:\n.env (1)"));
    const none = withholdSecretSearchHits(outcome('No matches for "x" in the workspace.'));
    expect(only.output).toBe(`No matches outside secret-looking files.\n${searchNote}`);
    expect(none.output.endsWith(searchNote)).toBe(true);
  });
  it("withholds diff sections of secret files", () => {
    const diff = "diff --git a/.env b/.env\n-A=1\n+A=2\ndiff --git a/src/a.js b/src/a.js\n-x\n+y\n";
    const result = withholdSecretDiffSections(outcome(diff));
    expect(result.output).not.toContain("A=2");
    expect(result.output).toContain("+y");
    expect(result.metadata).toMatchObject({ secret_diffs_withheld: 1 });
  });
});
