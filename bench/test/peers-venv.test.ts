import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { ensurePeersVenv, peerPackages, peersVenvDir } from "../lib/peers-venv.js";

const pythonVersion = spawnSync("python3", ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], { encoding: "utf8" }).stdout.trim();

describe("peers-venv", () => {
  const dirs: string[] = [];
  const saved = process.env.PIP_INDEX_URL;
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.PIP_INDEX_URL;
    else process.env.PIP_INDEX_URL = saved;
  });

  it("uses a complete venv as it is, without pip", async () => {
    const cache = mkdtempSync(join(tmpdir(), "peers-cache-"));
    dirs.push(cache);
    const dir = peersVenvDir(cache, pythonVersion);
    mkdirSync(join(dir, "bin"), { recursive: true });
    for (const name of ["aider", "mini"]) writeFileSync(join(dir, "bin", name), "#!/bin/sh\n");
    writeFileSync(join(dir, "aide-peers.json"), JSON.stringify({ packages: peerPackages }));
    const venv = await ensurePeersVenv(cache);
    expect(venv).toMatchObject({ dir, installed: false, aider: join(dir, "bin", "aider"), mini: join(dir, "bin", "mini") });
  });

  it("says PyPI cannot be reached when the index does not answer, and leaves no half venv", async () => {
    const cache = mkdtempSync(join(tmpdir(), "peers-cache-"));
    dirs.push(cache);
    // A loopback port nothing listens on, as the index.
    process.env.PIP_INDEX_URL = "http://127.0.0.1:9/simple";
    await expect(ensurePeersVenv(cache)).rejects.toThrow(/PyPI cannot be reached/);
    expect(spawnSync("ls", [cache], { encoding: "utf8" }).stdout.trim()).toBe("");
  }, 120_000);
});
