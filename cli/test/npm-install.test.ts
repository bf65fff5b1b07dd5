import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";

/**
 * `npm i -g /path/to/clone` gives the `aide` command. The npm name `aide` is
 * another project's; ours is `aide-agent`. Installed into a temporary prefix, never the machine's.
 */
describe("npm i -g from a clone", () => {
  it("installs a working aide command under a package name that is not another project's", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { name: string; version: string; bin: Record<string, string> };
    expect(manifest.name).toBe("aide-agent");
    expect(manifest.bin.aide).toBe("cli/bin/aide.js");
    const prefix = mkdtempSync(join(tmpdir(), "aide-npm-prefix-"));
    try {
      mkdirSync(join(prefix, "lib"), { recursive: true });
      const install = spawnSync("npm", ["install", "--global", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", repoRoot], { encoding: "utf8", timeout: 120_000 });
      expect(install.status, install.stderr).toBe(0);
      const aide = join(prefix, "bin", "aide");
      const version = spawnSync(aide, ["--version"], { encoding: "utf8", cwd: tmpdir(), timeout: 30_000 });
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(manifest.version);
      const help = spawnSync(aide, ["run", "--help"], { encoding: "utf8", cwd: tmpdir(), timeout: 30_000 });
      expect(help.stdout).toContain("Usage: aide run");
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  }, 180_000);
});
