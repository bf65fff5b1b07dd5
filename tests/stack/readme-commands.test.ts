import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/service-process.js";

/** The README starts with the two command lines, and CI runs exactly the second. */
describe("the README's two command lines", () => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const block = /^# aide\n\n```sh\n(.+)\n(.+)\n```/.exec(readme);

  it("open the README", () => {
    expect(block).not.toBeNull();
    expect(block![1]).toContain("npm run demo");
    expect(block![2]).toContain("npm test");
  });

  it("the second is what .ci/run runs, and nothing else", () => {
    const ci = readFileSync(join(repoRoot, ".ci", "run"), "utf8")
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("#"));
    expect(ci).toEqual(["set -euo pipefail", 'cd "$(dirname "$0")/.."', block![2]]);
  });

  it("every npm script they name exists", () => {
    const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    for (const line of [block![1], block![2]]) {
      for (const match of line.matchAll(/npm (?:run )?(\w[\w:-]*)/g)) expect(scripts[match[1]], match[0]).toBeDefined();
    }
  });
});
