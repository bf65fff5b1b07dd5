import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCommandRule } from "@aide/contracts";
import { evalCommandRules } from "./script-rules.js";

describe("evalCommandRules", () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-eval-rules-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("binds npm test and npm run test to the digest of the task's package.json scripts; other commands pass unchanged", () => {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
    const rules = evalCommandRules(dir, ["node", "npm test", "npm run test", "ls"]);
    expect(rules[0]).toBe("node");
    expect(rules[3]).toBe("ls");
    for (const rule of rules.slice(1, 3)) expect(parseCommandRule(rule).scriptsDigest).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "exit 0" } }));
    expect(evalCommandRules(dir, ["npm test"])[0]).not.toBe(rules[1]);
  });
});
