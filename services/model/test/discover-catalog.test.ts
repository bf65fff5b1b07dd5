import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverFiles } from "../src/discovery/discover-files.js";
import { sharedModelPath } from "../../../tests/helpers/service-process.js";

const have = existsSync(sharedModelPath);
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe.skipIf(!have)(have ? "discovery of pulled models" : `discovery of pulled models — SKIPPED: no GGUF at ${sharedModelPath}`, () => {
  it("a file aide models pull wrote keeps its catalog id; any other GGUF gets an id from its name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-discover-catalog-"));
    dirs.push(dir);
    symlinkSync(sharedModelPath, join(dir, "SmolLM2-135M-Instruct.Q4_1.gguf"));
    symlinkSync(sharedModelPath, join(dir, "my model.gguf"));
    const ids = (await discoverFiles(dir, 8192)).map((spec) => spec.id);
    expect(ids).toEqual(["smollm2-135m", "my-model"]);
  });
});
