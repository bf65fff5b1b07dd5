/**
 * The languages' toolchains inside the tools service as `aide up` runs it (its bubblewrap profile
 * hides the home) and inside each command's own sandbox (HOME is /tmp/home there): rustup's cargo,
 * pyenv's pytest, Go and javac run, the toolchains under the home bound back read-only, the rest of
 * the home still hidden. A toolchain absent from this machine is skipped, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execaSync } from "execa";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

const onHost = (probe: string) => execaSync("sh", ["-c", probe], { reject: false }).exitCode === 0;
const cargo = onHost("cargo --version");
const go = onHost("go version");
const javac = onHost("javac -version");
const pytest = onHost("python3 -m pytest --version");
const home = process.env.HOME ?? "/root";

describe("toolchains in the sandboxed tools service's commands", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    // The harness does not delegate cgroups to the sandboxed service as aide up does; limits are not what this is about.
    h = await startToolsHarness({ sandboxed: true, env: { AIDE_TOOLS_COMMAND_LIMITS: "off" } });
  });
  afterAll(async () => h?.stop());

  const run = async (command: string) => {
    const reply = await h.exec("run_command", { command, timeout_ms: 120_000 });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply.result as { output: string; is_error: boolean; metadata: { exit_code: number } };
  };

  it.skipIf(!cargo)(`${cargo ? "" : "(cargo is not on this machine) "}cargo (a rustup proxy under the home) builds and tests a crate offline`, async () => {
    mkdirSync(join(h.workspace, "crate", "src"), { recursive: true });
    writeFileSync(join(h.workspace, "crate", "Cargo.toml"), '[package]\nname = "probe"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n');
    writeFileSync(join(h.workspace, "crate", "src", "lib.rs"), "pub fn two() -> u8 { 2 }\n#[cfg(test)]\nmod tests { #[test] fn two() { assert_eq!(super::two(), 2); } }\n");
    const done = await run("cd crate && cargo test --offline --quiet");
    expect(done.metadata.exit_code, done.output).toBe(0);
    expect(done.output).toMatch(/test result: ok\. 1 passed/);
  }, 180_000);

  it.skipIf(!pytest)(`${pytest ? "" : "(pytest is not on this machine) "}python3 finds pytest (pyenv's, under the home)`, async () => {
    writeFileSync(join(h.workspace, "test_probe.py"), "def test_probe():\n    assert 1 + 1 == 2\n");
    const done = await run("python3 -m pytest -q -p no:cacheprovider test_probe.py");
    expect(done.metadata.exit_code, done.output).toBe(0);
    expect(done.output).toMatch(/1 passed/);
  });

  it.skipIf(!go)(`${go ? "" : "(go is not on this machine) "}go runs, never reaching for a module proxy`, async () => {
    const done = await run("go version && go env GOROOT");
    expect(done.metadata.exit_code, done.output).toBe(0);
    expect(done.output).toMatch(/go version go\d/);
  });

  it.skipIf(!javac)(`${javac ? "" : "(javac is not on this machine) "}javac compiles and java runs a class`, async () => {
    writeFileSync(join(h.workspace, "Probe.java"), 'public class Probe { public static void main(String[] a) { System.out.println("probe " + (1 + 1)); } }\n');
    const done = await run('out="$(mktemp -d)" && javac -d "$out" Probe.java && java -cp "$out" Probe');
    expect(done.metadata.exit_code, done.output).toBe(0);
    expect(done.output).toContain("probe 2");
  });

  it("the rest of the home stays hidden: only the toolchains' folders came back", async () => {
    const done = await run(`test ! -e ${home}/.cargo/env && test ! -e ${home}/.bashrc && ls -A ${home} | sed 's/^/entry: /'`);
    expect(done.metadata.exit_code, done.output).toBe(0);
    const entries = done.output.split("\n").filter((line) => line.startsWith("entry: ")).map((line) => line.slice("entry: ".length));
    expect(entries.length, done.output).toBeGreaterThan(0);
    // .aide: aide's home, itself an empty tmpfs in the profile but for the service's own state folder.
    for (const name of entries) expect([".rustup", ".pyenv", ".cargo", "go", ".local", ".aide"]).toContain(name);
  });
});
