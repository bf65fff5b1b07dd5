/**
 * The languages' toolchains inside the tools service as `aide up` runs it (its bubblewrap profile
 * hides the home) and inside each command's own sandbox (HOME is /tmp/home there): rustup's cargo,
 * pyenv's pytest, Go and javac run, the toolchains under the home bound back read-only, the rest of
 * the home still hidden. A toolchain absent from this machine is skipped, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execaSync } from "execa";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { requestJson } from "../../../tests/helpers/service-process.js";

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

  let calls = 0;
  // A cold build may outlast the harness's 60 s request: these calls wait as long as the command may run.
  const run = async (command: string) => {
    calls += 1;
    const reply = await requestJson(
      h.client,
      "agent.tools.exec",
      { session: "s1", workspace: h.workspace, call: { id: `toolchain-${calls}`, name: "run_command", arguments: { command, timeout_ms: 240_000 } } },
      260_000,
    );
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply.result as { output: string; is_error: boolean; metadata: { exit_code: number } };
  };

  it.skipIf(!cargo)(
    `${cargo ? "" : "(cargo is not on this machine) "}cargo (a rustup proxy under the home) builds and tests a crate offline`,
    async () => {
      mkdirSync(join(h.workspace, "crate", "src"), { recursive: true });
      writeFileSync(join(h.workspace, "crate", "Cargo.toml"), '[package]\nname = "probe"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n');
      writeFileSync(join(h.workspace, "crate", "src", "lib.rs"), "pub fn two() -> u8 { 2 }\n#[cfg(test)]\nmod tests { #[test] fn two() { assert_eq!(super::two(), 2); } }\n");
      // A wrapper the repository names in .cargo/config.toml would run on every cargo command: the service's overrides turn it off.
      mkdirSync(join(h.workspace, "crate", ".cargo"));
      writeFileSync(join(h.workspace, "crate", ".cargo", "config.toml"), '[build]\nrustc-wrapper = "./wrap.sh"\n');
      writeFileSync(join(h.workspace, "crate", "wrap.sh"), '#!/bin/sh\ntouch wrapper-ran\nexec "$@"\n', { mode: 0o755 });
      const done = await run("cd crate && cargo test --offline --quiet");
      expect(done.metadata.exit_code, done.output).toBe(0);
      expect(done.output).toMatch(/test result: ok\. 1 passed/);
      expect(existsSync(join(h.workspace, "crate", "wrapper-ran"))).toBe(false);
    },
    180_000,
  );

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

  it.skipIf(!go)(
    `${go ? "" : "(go is not on this machine) "}a workspace's commands share Go's build cache: the second build compiles none of the standard library again`,
    async () => {
      mkdirSync(join(h.workspace, "gomod"));
      writeFileSync(join(h.workspace, "gomod", "go.mod"), "module example.com/probe\n\ngo 1.22\n");
      writeFileSync(join(h.workspace, "gomod", "probe.go"), 'package probe\n\nimport "strconv"\n\nfunc Two() string { return strconv.Itoa(2) }\n');
      // go build -v names each package it compiles: strconv the first time (a fresh sandbox, an empty cache; a small import keeps the cold build short), nothing the second.
      const first = await run("cd gomod && go build -v ./... 2>&1 | sed 's/^/built: /'");
      expect(first.metadata.exit_code, first.output).toBe(0);
      expect(first.output).toContain("built: strconv");
      const second = await run("cd gomod && go build -v ./... 2>&1 | sed 's/^/built: /'");
      expect(second.metadata.exit_code, second.output).toBe(0);
      expect(second.output).not.toContain("built: strconv");
    },
    300_000,
  );

  it.skipIf(!javac)(`${javac ? "" : "(javac is not on this machine) "}javac compiles and java runs a class`, async () => {
    writeFileSync(join(h.workspace, "Probe.java"), 'public class Probe { public static void main(String[] a) { System.out.println("probe " + (1 + 1)); } }\n');
    const done = await run('out="$(mktemp -d)" && javac -d "$out" Probe.java && java -cp "$out" Probe');
    expect(done.metadata.exit_code, done.output).toBe(0);
    expect(done.output).toContain("probe 2");
  });

  it("the rest of the home stays hidden: only the toolchains' folders came back", async () => {
    const done = await run(`test ! -e ${home}/.cargo/env && test ! -e ${home}/.bashrc && ls -A ${home} | sed 's/^/entry: /'`);
    expect(done.metadata.exit_code, done.output).toBe(0);
    const entries = done.output
      .split("\n")
      .filter((line) => line.startsWith("entry: "))
      .map((line) => line.slice("entry: ".length));
    expect(entries.length, done.output).toBeGreaterThan(0);
    // .aide: aide's home, itself an empty tmpfs in the profile but for the service's own state folder.
    for (const name of entries) expect([".rustup", ".pyenv", ".cargo", "go", ".local", ".aide"]).toContain(name);
  });
});
