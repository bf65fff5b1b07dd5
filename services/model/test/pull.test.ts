import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@aide/runtime";
import { pullModel, requireModelFile } from "../src/model-file.js";
import type { LlamaSpec } from "../src/model-spec.js";
import { sharedModelPath } from "../../../tests/helpers/service-process.js";

const haveModel = existsSync(sharedModelPath);

function spec(id: string, uri: string): LlamaSpec {
  return { id, provider: "llama", uri, thinking: false, maxOutputTokens: 64, maxIterations: 25, contextBudget: 512, nativeTools: false, gpuLayers: 0, maxSessions: 1, grammar: true };
}

describe.skipIf(!haveModel)(haveModel ? "pulling a model URI into AIDE_HOME/models (loopback server)" : `model pull — SKIPPED: no model at ${sharedModelPath}`, () => {
  let server: Server;
  let base: string;
  let home: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-pull-"));
    server = createServer((req, res) => {
      if (req.url !== "/models/stories.gguf") {
        res.writeHead(404);
        return void res.end();
      }
      const size = statSync(sharedModelPath).size;
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(size), "accept-ranges": "none" });
      if (req.method === "HEAD") return void res.end();
      createReadStream(sharedModelPath).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("is refused MODEL_UNAVAILABLE with the pull command before it is pulled", () => {
    expect(() => requireModelFile(spec("stories", `${base}/models/stories.gguf`), home)).toThrow(/aide models pull stories/);
  });

  it("downloads with progress to $AIDE_HOME/models/<id>.gguf", async () => {
    const progress: number[] = [];
    const path = await pullModel(spec("stories", `${base}/models/stories.gguf`), home, { onProgress: (p) => progress.push(p.downloadedBytes) });
    expect(path).toBe(join(home, "models", "stories.gguf"));
    expect(readFileSync(path).equals(readFileSync(sharedModelPath))).toBe(true);
    expect(progress.at(-1)).toBe(statSync(sharedModelPath).size);
    expect(requireModelFile(spec("stories", `${base}/models/stories.gguf`), home).path).toBe(path);
  });

  it("offline (nothing listening) gives a clear MODEL_UNAVAILABLE", async () => {
    const port = await freePort();
    await expect(pullModel(spec("offline", `http://127.0.0.1:${port}/x.gguf`), home, { stallMs: 1500 })).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(existsSync(join(home, "models", "offline.gguf"))).toBe(false);
  });
});
