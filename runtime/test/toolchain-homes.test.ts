import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toolchainHomes } from "../src/sandbox/toolchain-homes.js";

describe("toolchainHomes", () => {
  const home = mkdtempSync(join(tmpdir(), "aide-toolchain-home-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  for (const folder of [".rustup/toolchains", ".cargo/bin", ".pyenv/shims", ".pyenv/bin", "go/bin", ".ssh"]) mkdirSync(join(home, folder), { recursive: true });

  it("finds rustup's and pyenv's homes and the PATH entries under the home, outermost only, never the home or a missing folder", () => {
    const path = [`${home}/.pyenv/shims`, `${home}/.pyenv/bin`, `${home}/.cargo/bin`, `${home}/go/bin`, `${home}/.local/bin`, home, "/usr/local/go/bin", "/usr/bin"].join(":");
    expect(toolchainHomes({ HOME: home, PATH: path })).toEqual({
      env: { RUSTUP_HOME: `${home}/.rustup`, PYENV_ROOT: `${home}/.pyenv` },
      folders: [`${home}/.cargo/bin`, `${home}/.pyenv`, `${home}/.rustup`, `${home}/go/bin`],
    });
  });

  it("takes RUSTUP_HOME and PYENV_ROOT as set; outside the home they need no folder bound back", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "aide-rustup-elsewhere-"));
    try {
      expect(toolchainHomes({ HOME: home, PATH: "/usr/bin", RUSTUP_HOME: elsewhere, PYENV_ROOT: join(home, "missing") })).toEqual({ env: { RUSTUP_HOME: elsewhere }, folders: [] });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
