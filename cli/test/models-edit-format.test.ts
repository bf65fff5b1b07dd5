import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";

const root = mkdtempSync(join(tmpdir(), "aide-models-edit-format-"));
const config = join(root, "models.json");
writeFileSync(join(root, "t.json"), JSON.stringify({ replies: [{ text: "hi" }] }));
writeFileSync(config, JSON.stringify({ default: "replay", models: [{ id: "replay", provider: "scripted", transcript: join(root, "t.json") }] }));
const aide = (...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "models", ...args], {
    env: { ...process.env, AIDE_HOME: root, AIDE_MODELS_CONFIG: config, AIDE_MODEL_DISCOVERY: "off" },
    encoding: "utf8",
    timeout: 30_000,
  });

/** The per-model edit format: set in models.json by `aide models edit-format`, shown by `aide models`. */
describe("aide models edit-format", () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("writes the model's edit format into its registry entry, shows it in the list, and removes it with default", () => {
    expect(aide()).toMatchObject({ status: 0 });
    expect(aide().stdout).toMatch(/replay\s+scripted\s+configured\s+ctx \d+\s+edits routed /);
    const set = aide("edit-format", "replay", "whole-file");
    expect(set.status, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(config, "utf8")).models[0]).toMatchObject({ id: "replay", editFormat: "whole-file" });
    expect(aide().stdout).toMatch(/replay\s+scripted\s+configured\s+ctx \d+\s+edits whole-file /);
    expect(aide("edit-format", "replay", "default").status).toBe(0);
    expect(JSON.parse(readFileSync(config, "utf8")).models[0].editFormat).toBeUndefined();
  });

  it("refuses an unknown format or a model that is not in the file, saying what is accepted", () => {
    const bad = aide("edit-format", "replay", "diff");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("one of routed-v1, search-replace, unified-diff, whole-file, default");
    const missing = aide("edit-format", "nope", "whole-file");
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("nope is not an entry of");
  });
});
