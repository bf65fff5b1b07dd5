import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, sharedModelPath } from "../../tests/helpers/service-process.js";

const root = mkdtempSync(join(tmpdir(), "aide-models-cli-"));
const config = join(root, "models.json");
writeFileSync(join(root, "t.json"), JSON.stringify({ replies: [{ text: "hi" }] }));
writeFileSync(
  config,
  JSON.stringify({
    default: "stories",
    models: [
      { id: "stories", provider: "llama", file: sharedModelPath },
      { id: "remote-only", provider: "llama", uri: "hf:example/model/model.gguf" },
      { id: "replay", provider: "scripted", transcript: join(root, "t.json") },
    ],
  }),
);
const aide = (...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "models", ...args], {
    env: { ...process.env, AIDE_HOME: root, AIDE_MODELS_CONFIG: config, AIDE_MODEL_DISCOVERY: "off" },
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
      env: { ...process.env, AIDE_HOME: root, AIDE_MODELS_CONFIG: join(root, "bad.json"), AIDE_MODEL_DISCOVERY: "off" },
      encoding: "utf8",
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("models.0.threads");
  });

  it("probes the shipped GGUF in-process: a table by default, the profile with --json, cached where the service reads it", () => {
    const table = aide("probe", "stories", "--trials", "1");
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/trained window\s+2048 tokens/);
    expect(table.stdout).toMatch(/prompt tier\s+compact/);
    expect(table.stdout).toMatch(/KV reuse\s+yes/);
    for (const row of ["loaded window", "prefill", "decode", "calls, grammar", "calls, no grammar", "chat template"]) expect(table.stdout).toContain(row);
    const json = aide("probe", "stories", "--json");
    expect(json.status, json.stderr).toBe(0);
    const profile = JSON.parse(json.stdout);
    expect(profile).toMatchObject({ model: "stories", provider: "llama", prompt_tier: "compact", context: { trained: 2048, window: 2048 } });
    // The second call read the cache the first one wrote (same probe time).
    expect(table.stdout).toContain("window used");
    expect(existsSync(join(root, "model-state", "profiles"))).toBe(true);
    expect(aide("probe", "replay").stderr).toContain("nothing to probe");
  }, 120_000);
});

describe("aide models add, list with discovery, and aide doctor's registry check", () => {
  const home = mkdtempSync(join(tmpdir(), "aide-models-add-"));
  const env = { ...process.env, AIDE_HOME: home, AIDE_MODEL_DISCOVERY: "off", AIDE_MODELS_CONFIG: "" };
  const cli = (...args: string[]) => spawnSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), ...args], { env, encoding: "utf8", timeout: 30_000 });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("with no model says where to drop a GGUF, to start Ollama or to use aide models add", () => {
    const listed = cli("models");
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(`drop a GGUF file into ${join(home, "models")}`);
    expect(listed.stdout).toContain("aide models add");
  });

  it("lists a dropped GGUF as discovered with its metadata window", () => {
    mkdirSync(join(home, "models"), { recursive: true });
    copyFileSync(sharedModelPath, join(home, "models", "tiny.gguf"));
    const listed = cli("models");
    expect(listed.stdout).toMatch(/^\* tiny\s+llama\s+discovered\s+ctx 2048/m);
  });

  it("adds validated entries to models.json; a bad field is refused by its path and nothing is written", () => {
    const added = cli("models", "add", "local-qwen", "--url", "http://127.0.0.1:11434/v1", "--model", "qwen2.5-coder:7b", "--flavor", "ollama", "--context", "8192", "--default");
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added local-qwen in ${join(home, "models.json")}`);
    const file = JSON.parse(readFileSync(join(home, "models.json"), "utf8"));
    expect(file).toMatchObject({ default: "local-qwen", models: [{ id: "local-qwen", provider: "openai", flavor: "ollama", contextBudget: 8192 }] });
    const bad = cli("models", "add", "broken", "--url", "not a url", "--model", "m");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("models.1.baseUrl");
    const badFlavor = cli("models", "add", "broken", "--url", "http://127.0.0.1:1/v1", "--model", "m", "--flavor", "olama");
    expect(badFlavor.stderr).toContain("models.1.flavor");
    expect(JSON.parse(readFileSync(join(home, "models.json"), "utf8")).models).toHaveLength(1);
    const gguf = cli("models", "add", "tiny-configured", "--file", join(home, "models", "tiny.gguf"));
    expect(gguf.status, gguf.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(home, "models.json"), "utf8")).models[1]).toMatchObject({ id: "tiny-configured", contextBudget: 2048, contextSize: 2048 });
    expect(cli("models", "add", "ghost", "--file", join(home, "nope.gguf")).stderr).toContain(`file: no GGUF file at ${join(home, "nope.gguf")}`);
    const both = cli("models", "add", "x", "--file", "/a.gguf", "--url", "http://127.0.0.1:1/v1");
    expect(both.status).toBe(2);
    const listed = cli("models");
    expect(listed.stdout).toMatch(/^\* local-qwen\s+openai\s+configured/m);
    // The configured entry for the same file wins over the discovered one.
    expect(listed.stdout).toMatch(/^ {2}tiny-configured\s+llama\s+configured\s+ctx 2048/m);
    expect(listed.stdout).not.toMatch(/^ {2}tiny\s+llama\s+discovered/m);
  });

  it("aide doctor fails the model check on a broken models.json, naming the field; passes it when valid", () => {
    const ok = cli("doctor", "--json");
    const okCheck = JSON.parse(ok.stdout).checks.find((check: { name: string }) => check.name === "model");
    expect(okCheck).toMatchObject({ ok: true });
    writeFileSync(join(home, "models.json"), JSON.stringify({ models: [{ id: "x", provider: "llama", file: "/x.gguf", threads: "many" }] }));
    const broken = cli("doctor", "--json");
    const check = JSON.parse(broken.stdout).checks.find((entry: { name: string }) => entry.name === "model");
    expect(check).toMatchObject({ ok: false, required: true });
    expect(check.detail).toContain("models.0.threads");
    expect(broken.status).toBe(1);
    // aide up refuses it at once, naming the field, instead of waiting for a model service that never answers.
    const up = cli("up", "--nats-port", "0", "--gateway-port", "0", "--unsandboxed-services");
    expect(up.status).toBe(1);
    expect(up.stderr).toContain("models.0.threads");
    expect(existsSync(join(home, "stack.json"))).toBe(false);
  }, 60_000);
});
