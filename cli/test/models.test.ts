import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, sharedModelPath } from "../../tests/helpers/service-process.js";

const root = mkdtempSync(join(tmpdir(), "aide-models-cli-"));
const config = join(root, "models.json");
writeFileSync(join(root, "t.json"), JSON.stringify({ replies: [{ text: "hi" }] }));
writeFileSync(config, JSON.stringify({
  default: "stories",
  models: [
    { id: "stories", provider: "llama", file: sharedModelPath },
    { id: "remote-only", provider: "llama", uri: "hf:example/model/model.gguf" },
    { id: "replay", provider: "scripted", transcript: join(root, "t.json") },
  ],
}));
const aide = (...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "models", ...args], {
    env: { ...process.env, AIDE_HOME: root, AIDE_MODELS_CONFIG: config },
    encoding: "utf8",
    timeout: 30_000,
  });

describe("aide models", () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("lists the registry the model service would load, with the default and where each model is", () => {
    const result = aide();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`models from ${config}`);
    expect(result.stdout).toMatch(/^\* stories\s+llama/m);
    expect(result.stdout).toContain(`${join(root, "models", "remote-only.gguf")} (absent: aide models pull remote-only)`);
    expect(result.stdout).toMatch(/replay\s+scripted/);
  });

  it("refuses to pull an unknown model or one that is not a local GGUF, saying why", () => {
    const unknown = aide("pull", "nope");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("no model 'nope'");
    const scripted = aide("pull", "replay");
    expect(scripted.status).toBe(1);
    expect(scripted.stderr).toContain("only local GGUF models are pulled");
    expect(aide("fetch").status).toBe(2);
  });

  it("a bad registry file is refused with the field's path", () => {
    writeFileSync(join(root, "bad.json"), JSON.stringify({ default: "x", models: [{ id: "x", provider: "llama", threads: "many", file: "/x" }] }));
    const result = spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "models"], {
      env: { ...process.env, AIDE_HOME: root, AIDE_MODELS_CONFIG: join(root, "bad.json") },
      encoding: "utf8",
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("models.0.threads");
  });
});
