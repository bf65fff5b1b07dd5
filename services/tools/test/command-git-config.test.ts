import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/**
 * run_command/process_start on a repository whose own .git/config names programs: every git the
 * command runs must use only the configuration the person can see.
 */
describe("run_command: git cannot run what the repository's config names", () => {
  let h: ToolsHarness;
  const sentinels = () => readdirSync(h.workspace).filter((name) => name.startsWith("pwned-"));
  const clear = () => sentinels().forEach((name) => rmSync(join(h.workspace, name)));
  const git = (...args: string[]) => execFileSync("git", ["-C", h.workspace, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: h.scratch, GIT_CONFIG_NOSYSTEM: "1" } });
  beforeAll(async () => {
    h = await startToolsHarness();
    git("init", "-q", "-b", "main");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "t");
    writeFileSync(join(h.workspace, "notes.txt"), "one\n");
    writeFileSync(join(h.workspace, "code.js"), "let a = 1;\n");
    writeFileSync(join(h.workspace, ".gitattributes"), "*.txt filter=evil diff=evil\n");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    writeFileSync(join(h.workspace, "notes.txt"), "one\ntwo\n");
    git("commit", "-q", "-am", "second");
    const ws = h.workspace;
    git("config", "core.fsmonitor", `sh -c 'touch ${ws}/pwned-fsmonitor'`);
    git("config", "core.pager", `sh -c 'touch ${ws}/pwned-pager; cat'`);
    git("config", "pager.log", `sh -c 'touch ${ws}/pwned-pager-log; cat'`);
    git("config", "diff.external", `sh -c 'touch ${ws}/pwned-external'`);
    git("config", "filter.evil.clean", `sh -c 'touch ${ws}/pwned-filter; cat'`);
    git("config", "filter.evil.smudge", `sh -c 'touch ${ws}/pwned-filter; cat'`);
    git("config", "diff.evil.textconv", `sh -c 'touch ${ws}/pwned-textconv; cat "$0"'`);
    git("config", "alias.st", `!touch ${ws}/pwned-alias; git status`);
    git("config", "core.hooksPath", ".githooks");
    mkdirSync(join(ws, ".githooks"));
    for (const hook of ["post-index-change", "pre-commit", "post-checkout"]) {
      writeFileSync(join(ws, ".githooks", hook), `#!/bin/sh\ntouch ${ws}/pwned-hook-${hook}\n`);
      chmodSync(join(ws, ".githooks", hook), 0o755);
    }
    // A nested repository with a hostile driver of its own.
    const sub = join(ws, "vendor", "lib");
    mkdirSync(sub, { recursive: true });
    const subGit = (...args: string[]) => execFileSync("git", ["-C", sub, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: h.scratch, GIT_CONFIG_NOSYSTEM: "1" } });
    subGit("init", "-q", "-b", "main");
    writeFileSync(join(sub, ".gitattributes"), "*.c filter=nested diff=nested\n");
    writeFileSync(join(sub, "lib.c"), "int x;\n");
    subGit("add", ".");
    subGit("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "lib");
    subGit("config", "filter.nested.clean", `sh -c 'touch ${ws}/pwned-nested-filter; cat'`);
    subGit("config", "diff.nested.textconv", `sh -c 'touch ${ws}/pwned-nested-textconv; cat "$0"'`);
    writeFileSync(join(sub, "lib.c"), "int y;\n");
    // The working tree now differs from the index, so status and diff must look at the files.
    writeFileSync(join(h.workspace, "notes.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(h.workspace, "code.js"), "let a = 2;\n");
  });
  afterAll(async () => h?.stop());

  const run = async (command: string) => {
    const reply = await h.exec("run_command", { command });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply.result;
  };

  it("control: the same commands run by plain git (as before the change) do run the repository's programs", () => {
    clear();
    const env = { PATH: process.env.PATH, HOME: h.scratch, GIT_CONFIG_NOSYSTEM: "1" };
    for (const args of [["status"], ["diff"], ["log", "-p"]]) execFileSync("git", args, { cwd: h.workspace, env, stdio: "ignore" });
    execFileSync("git", ["diff"], { cwd: join(h.workspace, "vendor", "lib"), env, stdio: "ignore" });
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "control"], { cwd: h.workspace, env, stdio: "ignore" });
    expect(sentinels()).toEqual(expect.arrayContaining(["pwned-fsmonitor", "pwned-external", "pwned-filter", "pwned-hook-pre-commit", "pwned-nested-filter"]));
    execFileSync("git", ["reset", "-q", "--soft", "HEAD~1"], { cwd: h.workspace, env, stdio: "ignore" });
    clear();
  });

  it("git status, git diff and git log -p leave no sentinel and still show the real changes", async () => {
    clear();
    const status = await run("git status");
    expect(status.is_error, status.output).toBe(false);
    expect(status.output).toContain("modified:   code.js");
    expect(status.output).toContain("modified:   notes.txt");
    const diff = await run("git diff");
    expect(diff.is_error, diff.output).toBe(false);
    expect(diff.output).toContain("-let a = 1;");
    expect(diff.output).toContain("+let a = 2;");
    expect(diff.output).toContain("+three");
    const log = await run("git log -p");
    expect(log.is_error, log.output).toBe(false);
    expect(log.output).toContain("+two");
    expect(log.output).toContain("second");
    expect(sentinels()).toEqual([]);
  });

  it("covers every git of a shell pipeline, and a `!` alias does not run", async () => {
    clear();
    const piped = await run("git status --short && git diff --stat | cat && git log -p -1 | head -20");
    expect(piped.output).toContain("code.js");
    const alias = await run("git st");
    expect(alias.is_error).toBe(true);
    const nested = await run("cd vendor/lib && git status --short && git diff");
    expect(nested.output).toContain("+int y;");
    const commit = await run("git add code.js && git commit -q -m third && git log --oneline -1");
    expect(commit.is_error, commit.output).toBe(false);
    expect(commit.output).toContain("third");
    expect(sentinels()).toEqual([]);
  });

  it("process_start's git is neutralized too", async () => {
    clear();
    const started = await h.exec("process_start", { command: "git diff", wait_ms: 5000 });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    let running = started.result.metadata.running;
    let output = started.result.output;
    for (let i = 0; i < 50 && running !== false; i += 1) {
      const poll = await h.exec("process_poll", { process_id: started.result.metadata.process_id, wait_ms: 2000 });
      running = poll.result.metadata.running;
      output += poll.result.output;
    }
    expect(running).toBe(false);
    expect(output).toContain("+three");
    expect(existsSync(join(h.workspace, "pwned-external"))).toBe(false);
    expect(existsSync(join(h.workspace, "pwned-filter"))).toBe(false);
    expect(sentinels()).toEqual([]);
  });

  // Issue 27: the listing is reused between commands; these say it is never reused stale.
  it("a driver added to the config on the host between two commands is neutralized by the second", async () => {
    clear();
    expect((await run("git diff")).metadata.git_config_neutralized).toBeGreaterThan(0);
    writeFileSync(join(h.workspace, ".gitattributes"), "*.txt filter=evil diff=evil\n*.js filter=late\n");
    git("config", "filter.late.clean", `sh -c 'touch ${h.workspace}/pwned-late; cat'`);
    writeFileSync(join(h.workspace, "code.js"), "let a = 3;\n");
    const diff = await run("git diff");
    expect(diff.output).toContain("+let a = 3;");
    expect(sentinels()).toEqual([]);
    writeFileSync(join(h.workspace, ".gitattributes"), "*.txt filter=evil diff=evil\n");
  });

  it("a repository a command makes, with a driver, is neutralized for the next command", async () => {
    clear();
    const ws = h.workspace;
    const made = await run(
      `git init -q -b main fresh && cd fresh && printf 'x\\n' > a.md && echo '*.md filter=fresh' > .gitattributes && git -c user.email=t@e -c user.name=t add . && git -c user.email=t@e -c user.name=t commit -q -m one && git config filter.fresh.clean "sh -c 'touch ${ws}/pwned-fresh; cat'" && printf 'y\\n' > a.md`,
    );
    expect(made.is_error, made.output).toBe(false);
    const diff = await run("cd fresh && git diff");
    expect(diff.output).toContain("+y");
    expect(sentinels()).toEqual([]);
    rmSync(join(ws, "fresh"), { recursive: true, force: true });
  });
});
