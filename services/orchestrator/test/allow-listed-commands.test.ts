import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/**
 * Issue 20 over the real services: an allow-listed command runs only what the person can see.
 * Auto-approved git commands cannot run the programs a hostile .git/config names; `npm test` is
 * not covered by an `npm` rule (it runs the package's own script) and its approval shows the script.
 */
describe.skipIf(skipReason !== "")(`allow-listed commands run with the configuration the person can see${skipReason}`, () => {
  let stack: Stack;
  /** The digest of `npm test`'s script as the first approval showed it. */
  let shownDigest = "";
  const sentinels = () => readdirSync(stack.workspace).filter((name) => name.startsWith("pwned-"));
  beforeAll(async () => {
    stack = await startStack([{ text: `${call.run("git status")}` }, { text: call.run("git diff") }, { text: call.run("git log -p") }, { text: call.complete("Looked at the repository.") }], {
      models: {
        npm: [{ text: call.run("npm test") }, { text: call.complete("Ran the tests.") }],
        named: [{ text: call.run("npm test") }, { text: call.complete("Ran the tests.") }],
      },
    });
    const ws = stack.workspace;
    const git = (...args: string[]) => execFileSync("git", ["-C", ws, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: stack.dir, GIT_CONFIG_NOSYSTEM: "1" } });
    git("init", "-q", "-b", "main");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "t");
    writeFileSync(join(ws, ".gitattributes"), "*.js filter=evil diff=evil\n");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    git("config", "core.fsmonitor", `sh -c 'touch ${ws}/pwned-fsmonitor'`);
    git("config", "core.pager", `sh -c 'touch ${ws}/pwned-pager; cat'`);
    git("config", "diff.external", `sh -c 'touch ${ws}/pwned-external'`);
    git("config", "filter.evil.clean", `sh -c 'touch ${ws}/pwned-filter; cat'`);
    git("config", "filter.evil.smudge", `sh -c 'touch ${ws}/pwned-filter; cat'`);
    git("config", "diff.evil.textconv", `sh -c 'touch ${ws}/pwned-textconv; cat "$0"'`);
    writeFileSync(join(ws, "math.js"), "export const add = (a, b) => a + b; // changed\n");
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("control: plain git on this workspace does run the hostile programs", () => {
    const env = { PATH: process.env.PATH, HOME: stack.dir, GIT_CONFIG_NOSYSTEM: "1" };
    const touched: string[] = [];
    for (const args of [["status"], ["diff"]]) execFileSync("git", args, { cwd: stack.workspace, env, stdio: "ignore" });
    touched.push(...sentinels());
    for (const name of touched) execFileSync("rm", ["-f", join(stack.workspace, name)]);
    expect(touched).toEqual(expect.arrayContaining(["pwned-fsmonitor", "pwned-external", "pwned-filter"]));
  });

  it("auto-approved git status, git diff and git log -p (rule `git`) leave no sentinel", async () => {
    const started = await stack.command("start", { allow_concurrent: true, task: "Look at the repository", workspace: stack.workspace, auto_approve: { edits: false, commands: ["git"] } });
    const session = started.result.session as string;
    await stack.terminal(session, undefined, 60_000);
    const runs = stack.events.filter((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(runs).toHaveLength(3);
    for (const run of runs) expect(run.payload.is_error, JSON.stringify(run.payload)).toBe(false);
    expect(stack.events.filter((e) => e.session === session && e.type === "approval.requested")).toEqual([]);
    expect(stack.events.filter((e) => e.session === session && e.type === "approval.decided").map((e) => e.payload.decision)).toEqual(["auto", "auto", "auto"]);
    expect(sentinels()).toEqual([]);
  });

  it("`npm test` is not auto-approved by an `npm` rule; its approval shows the script it runs", async () => {
    const started = await stack.command("start", { allow_concurrent: true, task: "Run the tests", workspace: stack.workspace, model: "npm", auto_approve: { edits: false, commands: ["npm"] } });
    const session = started.result.session as string;
    const asked = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    expect(asked.payload).toMatchObject({ tool: "run_command", command: "npm test", scripts: [{ source: "package.json", name: "test", text: "node math.test.js" }] });
    shownDigest = String((asked.payload as { scripts_digest?: string }).scripts_digest ?? "");
    await stack.command("decision", { session, approval: (asked.payload as { approval: string }).approval, decision: "reject" });
    await stack.terminal(session, undefined, 60_000);
  });

  it("a rule naming the script with the digest of the text shown (`npm test sha256:…`) auto-approves it", async () => {
    expect(shownDigest).toMatch(/^[0-9a-f]{64}$/);
    const started = await stack.command("start", {
      allow_concurrent: true,
      task: "Run the tests",
      workspace: stack.workspace,
      model: "named",
      auto_approve: { edits: false, commands: [`npm test sha256:${shownDigest}`] },
    });
    const session = started.result.session as string;
    await stack.terminal(session, undefined, 60_000);
    expect(stack.events.filter((e) => e.session === session && e.type === "approval.requested")).toEqual([]);
    expect(stack.events.find((e) => e.session === session && e.type === "approval.decided")?.payload.decision).toBe("auto");
    expect(stack.invalidEvents).toEqual([]);
  });
});
