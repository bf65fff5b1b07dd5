import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";

const home = mkdtempSync(join(tmpdir(), "aide-run-setting-"));

/** `aide run --setting KEY=VALUE`: checked with the eval arms' parser before any stack is looked for or started. */
describe("aide run --setting", () => {
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("refuses an unknown setting or value with exit 2, naming what is accepted, and starts nothing", () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "run", ...args], { env: { ...process.env, AIDE_HOME: home }, encoding: "utf8", timeout: 30_000 });
    const value = run("--setting", "few_shot=maybe", "fix it");
    expect(value.status).toBe(2);
    expect(value.stderr).toContain("--setting few_shot=maybe: few_shot is one of on, off");
    const key = run("--setting", "temperature=0", "fix it");
    expect(key.status).toBe(2);
    expect(key.stderr).toContain('unknown setting "temperature"; the settings are prompt_tier, grammar');
    expect(value.stderr + key.stderr).not.toContain("starting one for this run");
  });
});
