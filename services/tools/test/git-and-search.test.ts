import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { requestJson } from "../../../tests/helpers/service-process.js";

const markers = ["pwned-fsmonitor", "pwned-filter", "pwned-textconv", "pwned-external", "pwned-pager", "pwned-hook"];

describe("git_status and git_diff on a hostile repository", () => {
  let h: ToolsHarness;
  const git = (...args: string[]) => execFileSync("git", ["-C", h.workspace, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: h.scratch, GIT_CONFIG_NOSYSTEM: "1" } });
  beforeAll(async () => {
    h = await startToolsHarness();
    git("init", "-q", "-b", "main");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "t");
    writeFileSync(join(h.workspace, "notes.txt"), "one\n");
    writeFileSync(join(h.workspace, "code.js"), "let a = 1;\n");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    // Now the repository turns hostile: every way its own config can run a program.
    const ws = h.workspace;
    const touch = (name: string) => `sh -c 'touch ${ws}/${name}; cat'`;
    git("config", "core.fsmonitor", `sh -c 'touch ${ws}/pwned-fsmonitor'`);
    git("config", "filter.evil.clean", touch("pwned-filter"));
    git("config", "filter.evil.smudge", touch("pwned-filter"));
    git("config", "diff.evil.textconv", `sh -c 'touch ${ws}/pwned-textconv; cat "$0"'`);
    git("config", "diff.external", `sh -c 'touch ${ws}/pwned-external'`);
    git("config", "core.pager", `sh -c 'touch ${ws}/pwned-pager; cat'`);
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "hooks", "post-index-change"), `#!/bin/sh\ntouch ${ws}/pwned-hook\n`);
    chmodSync(join(ws, ".git", "hooks", "post-index-change"), 0o755);
    writeFileSync(join(ws, ".gitattributes"), "*.txt filter=evil diff=evil\n");
    writeFileSync(join(ws, "notes.txt"), "one\ntwo\n");
    writeFileSync(join(ws, "code.js"), "let a = 2;\n");
    writeFileSync(join(ws, "untracked.md"), "new\n");
  });
  afterAll(async () => h?.stop());

  it("git_status lists the changes and runs none of the repository's programs", async () => {
    const reply = await h.exec("git_status", {});
    expect(reply.result.is_error, reply.result.output).toBe(false);
    expect(reply.result.output).toContain("## main");
    expect(reply.result.output).toContain(" M code.js");
    expect(reply.result.output).toContain(" M notes.txt");
    expect(reply.result.output).toContain("?? untracked.md");
    for (const marker of markers) expect(existsSync(join(h.workspace, marker)), marker).toBe(false);
  });

  it("git_diff shows the real diff without textconv, external diff or pager", async () => {
    const reply = await h.exec("git_diff", {});
    expect(reply.result.is_error, reply.result.output).toBe(false);
    expect(reply.result.output).toContain("-let a = 1;");
    expect(reply.result.output).toContain("+let a = 2;");
    expect(reply.result.output).toContain("+two");
    const limited = await h.exec("git_diff", { path: "code.js" });
    expect(limited.result.output).toContain("code.js");
    expect(limited.result.output).not.toContain("notes.txt");
    for (const marker of markers) expect(existsSync(join(h.workspace, marker)), marker).toBe(false);
  });

  it("refuses option injection through ref", async () => {
    const reply = await h.exec("git_diff", { ref: "--output=/tmp/x" });
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.metadata.error_code).toBe("VALIDATION");
  });

  it("control: plain git on the same repository does run the hostile programs (so the test above can fail)", () => {
    for (const marker of markers) rmSync(join(h.workspace, marker), { force: true });
    git("status");
    execFileSync("git", ["-C", h.workspace, "-p", "diff"], { env: { PATH: process.env.PATH, HOME: h.scratch, GIT_CONFIG_NOSYSTEM: "1", GIT_PAGER: "" }, stdio: "ignore" });
    const ran = markers.filter((marker) => existsSync(join(h.workspace, marker)));
    expect(ran.length).toBeGreaterThanOrEqual(2);
  });
});

describe("search_files: ripgrep and the JS fallback give the same answers", () => {
  let rg: ToolsHarness;
  let js: ToolsHarness;
  beforeAll(async () => {
    rg = await startToolsHarness();
    js = await startToolsHarness({ env: { AIDE_TOOLS_SEARCH: "js" } });
    for (const h of [rg, js]) {
      const ws = h.workspace;
      mkdirSync(join(ws, "src", "deep"), { recursive: true });
      mkdirSync(join(ws, "node_modules", "lib"), { recursive: true });
      mkdirSync(join(ws, "build"), { recursive: true });
      mkdirSync(join(ws, ".config"), { recursive: true });
      writeFileSync(join(ws, ".gitignore"), "node_modules/\nbuild\n*.log\n!keep.log\n");
      writeFileSync(join(ws, "src", "a.ts"), "const TODO = 1; // TODO twice TODO\nfunction todo() {}\n");
      writeFileSync(join(ws, "src", "deep", "b.py"), "# TODO: fix\nprint('todo')\n");
      writeFileSync(join(ws, "src", "deep", ".gitignore"), "generated.py\n");
      writeFileSync(join(ws, "src", "deep", "generated.py"), "TODO generated\n");
      writeFileSync(join(ws, "node_modules", "lib", "index.js"), "TODO in a dependency\n");
      writeFileSync(join(ws, "build", "out.js"), "TODO in build output\n");
      writeFileSync(join(ws, "debug.log"), "TODO in a log\n");
      writeFileSync(join(ws, "keep.log"), "TODO kept\n");
      writeFileSync(join(ws, ".config", "settings.json"), '{"TODO": true}\n');
      writeFileSync(join(ws, "image.bin"), Buffer.from([0, 1, 2, 84, 79, 68, 79, 0]));
      writeFileSync(join(ws, "a.b.txt"), "literal a.b here, and aXb\n");
      writeFileSync(join(ws, "windows.txt"), "line-end one\r\nmiddle line-end two\r\nline-end three\r\n");
    }
  });
  afterAll(async () => {
    await rg?.stop();
    await js?.stop();
  });

  const both = async (args: Record<string, unknown>) => {
    const [fromRg, fromJs] = await Promise.all([rg.exec("search_files", args), js.exec("search_files", args)]);
    expect(fromRg.result.metadata.engine).toBe("ripgrep");
    expect(fromJs.result.metadata.engine).toBe("javascript");
    expect(fromJs.result.output, JSON.stringify(args)).toBe(fromRg.result.output);
    return fromRg.result;
  };

  it("lists files first with match counts, honouring .gitignore (nested and negated), skipping binaries, .git and .aide", async () => {
    const result = await both({ pattern: "TODO" });
    expect(result.output.split("\n")).toEqual(
      ["7 matches in 5 files:", "src/a.ts (3)", ".config/settings.json (1)", "keep.log (1)", "src/deep/b.py (1)", "src/deep/generated.py (1)"]
        .filter((l) => !l.includes("generated"))
        .map((l) => l.replace("7 matches in 5 files", "6 matches in 4 files")),
    );
  });

  it("supports case-insensitive, literal, include globs, sub-directories and string booleans", async () => {
    await both({ pattern: "todo", case_insensitive: "true" });
    const literal = await both({ pattern: "a.b", literal: "true" });
    expect(literal.output).toContain("a.b.txt (1)");
    const regex = await both({ pattern: "a.b" });
    expect(regex.output).toContain("a.b.txt (2)");
    await both({ pattern: "TODO", include: "*.py" });
    await both({ pattern: "TODO", path: "src/deep" });
    await both({ pattern: "fix|print", path: "src" });
    const none = await both({ pattern: "nothing-matches-this" });
    expect(none.output).toContain("No matches");
  });

  it("matches lines that end in CRLF: `$` anchors before the \\r, in ripgrep and the fallback alike", async () => {
    const anchored = await both({ pattern: "line-end (one|two|three)$" });
    expect(anchored.output).toContain("windows.txt (3)");
    const wholeLine = await both({ pattern: "^line-end [a-z]+$" });
    expect(wholeLine.output).toContain("windows.txt (2)");
    const dotToEnd = await both({ pattern: "tw.$" });
    expect(dotToEnd.output).toContain("windows.txt (1)");
  });

  it("answers an invalid regex with a message, not a crash", async () => {
    const reply = await rg.exec("search_files", { pattern: "(unclosed" });
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.output).toMatch(/not a valid regular expression/);
    const fallback = await js.exec("search_files", { pattern: "(unclosed" });
    expect(fallback.result.is_error).toBe(true);
  });

  it("keeps search inside the jail", async () => {
    const reply = await rg.exec("search_files", { pattern: "root", path: "/etc" });
    expect(reply.result.metadata.error_code).toBe("PATH_OUTSIDE_WORKSPACE");
  });
});

describe("background processes", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
  });
  afterAll(async () => h?.stop());

  const alive = (needle: string) =>
    execFileSync("ps", ["-eo", "args="], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.includes(needle) && !l.includes("ps -eo"));
  /** The sandbox takes a moment to start the command; wait (bounded) until it shows up. */
  const runningSoon = async (needle: string) => {
    for (let attempt = 0; attempt < 100 && alive(needle).length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    return alive(needle);
  };

  it("process_start, process_poll and process_cancel, with nothing left afterwards", async () => {
    const started = await h.exec("process_start", { command: "for i in 1 2 3; do echo tick $i; done; sleep 3131", wait_ms: "2000" });
    expect(started.result.is_error, started.result.output).toBe(false);
    const id = started.result.metadata.process_id;
    expect(id).toMatch(/^p\d+$/);
    expect(started.result.metadata.running).toBe(true);
    // On a loaded machine the ticks may arrive after the start call returned: collect them by polling.
    let seen = started.result.output;
    for (let attempt = 0; attempt < 40 && !seen.includes("tick 3"); attempt += 1) {
      seen += (await h.exec("process_poll", { id, wait_ms: 250 })).result.output;
    }
    expect(seen).toContain("tick 1");
    expect(seen).toContain("tick 3");
    const polled = await h.exec("process_poll", { id });
    expect(polled.result.output).toContain("(no new output)");
    expect((await runningSoon("sleep 3131")).length).toBeGreaterThan(0);
    const cancelled = await h.exec("process_cancel", { id });
    expect(cancelled.result.metadata.running).toBe(false);
    expect(alive("sleep 3131")).toEqual([]);
    const unknown = await h.exec("process_poll", { id: "p999" });
    expect(unknown.result.is_error).toBe(true);
  });

  it("a process that exits reports its exit code on poll", async () => {
    const started = await h.exec("process_start", { command: "echo done; exit 4", wait_ms: 0 });
    const polled = await h.exec("process_poll", { id: started.result.metadata.process_id, wait_ms: 10_000 });
    expect(polled.result.metadata.exit_code).toBe(4);
    expect(polled.result.metadata.running).toBe(false);
  });

  it("processes of another session are not visible", async () => {
    const started = await h.exec("process_start", { command: "sleep 3232", wait_ms: 0 });
    const other = await h.exec("process_poll", { id: started.result.metadata.process_id }, { session: "other" });
    expect(other.result.is_error).toBe(true);
    await h.exec("process_cancel", { id: started.result.metadata.process_id });
  });

  it("agent.tools.close reaps a session's processes and leaves other sessions alone", async () => {
    const mine = await h.exec("process_start", { command: "sleep 3434", wait_ms: 0 }, { session: "closing" });
    const other = await h.exec("process_start", { command: "sleep 3535", wait_ms: 0 }, { session: "staying" });
    expect((await runningSoon("sleep 3434")).length).toBeGreaterThan(0);
    expect((await runningSoon("sleep 3535")).length).toBeGreaterThan(0);
    const reply = await requestJson(h.client, "agent.tools.close", { session: "closing" });
    expect(reply).toEqual({ ok: true, result: { session: "closing", processes_reaped: 1 } });
    expect(alive("sleep 3434")).toEqual([]);
    expect(alive("sleep 3535").length).toBeGreaterThan(0);
    await h.exec("process_cancel", { id: other.result.metadata.process_id }, { session: "staying" });
    expect(mine.result.metadata.process_id).toBeDefined();
  });

  it("the service reaps its background processes when it stops", async () => {
    const own = await startToolsHarness();
    await own.exec("process_start", { command: "sleep 3333", wait_ms: 0 });
    expect((await runningSoon("sleep 3333")).length).toBeGreaterThan(0);
    await own.stop();
    expect(alive("sleep 3333")).toEqual([]);
  });
});

describe("git_status and git_diff read only the workspace's own repository", () => {
  let h: ToolsHarness;
  const run = (cwd: string, ...args: string[]) => execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: h.scratch, GIT_CONFIG_NOSYSTEM: "1" } });
  beforeAll(async () => {
    h = await startToolsHarness();
  });
  afterAll(async () => h?.stop());

  it("a .git file pointing at a repository outside the workspace is refused, and the outside one is not read", async () => {
    const outside = join(h.scratch, "other-repo");
    mkdirSync(outside, { recursive: true });
    run(outside, "init", "-q", "-b", "secret-branch");
    writeFileSync(join(outside, "secret.txt"), "s\n");
    writeFileSync(join(h.workspace, ".git"), `gitdir: ${join(outside, ".git")}\n`);
    const reply = await h.exec("git_status", {});
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.output).toContain("outside the workspace");
    expect(reply.result.output).not.toContain("secret");
    rmSync(join(h.workspace, ".git"));
  });

  it("core.worktree pointing elsewhere does not move git off the workspace", async () => {
    const elsewhere = join(h.scratch, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, "far-away.txt"), "x\n");
    run(h.workspace, "init", "-q", "-b", "main");
    writeFileSync(join(h.workspace, "here.txt"), "y\n");
    run(h.workspace, "config", "core.worktree", elsewhere);
    const reply = await h.exec("git_status", {});
    expect(reply.result.is_error, reply.result.output).toBe(false);
    expect(reply.result.output).toContain("here.txt");
    expect(reply.result.output).not.toContain("far-away.txt");
  });

  it("a workspace without its own .git inside a larger repository is not a repository", async () => {
    rmSync(join(h.workspace, ".git"), { recursive: true, force: true });
    run(h.scratch, "init", "-q");
    const reply = await h.exec("git_status", {});
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.output).toBe("The workspace is not a git repository.");
  });
});
