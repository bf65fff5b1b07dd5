import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aideRun } from "../../tests/helpers/aide-run.js";
import { startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

const complete = "<attempt_completion>\n<result>Said hello with echo; touch was refused.</result>\n</attempt_completion>";
const replies = [
  { text: "<run_command>\n<command>echo allowed-by-rule</command>\n</run_command>" },
  { text: "<run_command>\n<command>touch made-by-model.txt</command>\n</run_command>" },
  // Enough completions for the first run (however many attempts it needs) and both continuations.
  ...Array.from({ length: 10 }, () => ({ text: complete })),
];

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every stdout line is one JSON object; the last is the summary. */
function jsonLines(result: Finished): Array<Record<string, any>> {
  const lines = result.stdout.split("\n").filter((line) => line !== "");
  expect(lines.length, result.stderr).toBeGreaterThan(1);
  return lines.map((line) => JSON.parse(line) as Record<string, any>);
}

/**
 * Issue 13 item 4 through a real `aide up` stack: `aide run --json` streams the bus events and
 * ends with the summary; `--allow-command` runs a matching command without asking, `--deny-rest`
 * refuses the other at once and the run goes on; `--resume` and `--continue` add a run to the
 * same session.
 */
describe("aide run headless: --json, --allow-command, --deny-rest, --resume, --continue", () => {
  let root: string;
  let workspace: string;
  let home: string;
  let stack: StackProcess;
  let env: NodeJS.ProcessEnv;
  let session: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-run-headless-"));
    workspace = join(root, "project");
    home = join(root, "home");
    mkdirSync(workspace, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(workspace, "README.md"), "# hello\n");
    const transcript = join(root, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ replies }));
    const models = join(root, "models.json");
    writeFileSync(models, JSON.stringify({ default: "ci", models: [{ id: "ci", provider: "scripted", transcript, contextBudget: 32_768 }] }));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace, "--models-config", models] });
    env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1" };
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("--json: events one per line, summary last; echo runs by rule, touch is refused by --deny-rest and the run goes on", async () => {
    const result = await aideRun(["say hello with echo", "--workspace", workspace, "--json", "--allow-command", "echo", "--deny-rest", "--approval-timeout", "900"], env);
    const lines = jsonLines(result);
    const summary = lines.at(-1)!;
    expect(summary).toMatchObject({ type: "summary", exit_code: result.code });
    expect(["done", "unverified"]).toContain(summary.outcome);
    expect(summary.commands_run).toBe(1);
    session = summary.session;
    const events = lines.slice(0, -1);
    for (const event of events) expect(event).toMatchObject({ session, seq: expect.any(Number), type: expect.any(String), payload: expect.any(Object) });
    expect(events.map((event) => event.seq)).toEqual([...events.map((event) => event.seq)].sort((a, b) => a - b));
    expect(events[0].type).toBe("run.created");
    expect(events.at(-1)!.type).toBe("run.completed");

    const completed = events.filter((event) => event.type === "tool.completed" && event.payload.tool === "run_command");
    expect(completed.map((event) => [event.payload.args.command, event.payload.is_error])).toEqual([
      ["echo allowed-by-rule", false],
      ["touch made-by-model.txt", true],
    ]);
    // The echo was covered by the rule: no approval was asked for it, only the touch's.
    const requested = events.filter((event) => event.type === "approval.requested");
    expect(requested.map((event) => event.payload.command)).toEqual(["touch made-by-model.txt"]);
    // --approval-timeout 900 reached the session (the default is 600 s): expiry = request time + 900 s.
    const wait = Date.parse(requested[0].payload.expires_at) - Date.parse(requested[0].ts);
    expect(wait).toBeGreaterThan(850_000);
    expect(wait).toBeLessThanOrEqual(900_000);
    const decided = events.filter((event) => event.type === "approval.decided");
    expect(decided.map((event) => event.payload.decision)).toEqual(["auto", "reject"]);
    expect(decided[1].payload.feedback).toMatch(/^refused by --deny-rest: not covered by the approval policy/);
    expect(completed[1].payload.summary).toMatch(/approval policy covers no such call/);
    expect(completed[1].payload.metadata).toMatchObject({ denied: "rejected", refused_by: "policy" });
    // The run went on after the refusal: the model was asked again and the run completed.
    const afterRefusal = events.slice(events.indexOf(decided[1]));
    expect(afterRefusal.some((event) => event.type === "model.requested")).toBe(true);
    expect(existsSync(join(workspace, "made-by-model.txt"))).toBe(false);
    expect(result.stderr).toContain(`session ${session}`);
  }, 240_000);

  it("--resume SESSION continues that session with a new run; --continue picks this workspace's last session", async () => {
    expect(session).toBeDefined();
    const resumed = await aideRun(["--resume", session, "now say goodbye", "--json"], { ...env });
    const lines = jsonLines(resumed);
    const summary = lines.at(-1)!;
    expect(summary).toMatchObject({ type: "summary", session, exit_code: resumed.code });
    const created = lines.filter((event) => event.type === "run.created");
    // Only the new run's events: the first run's are not replayed.
    expect(created).toHaveLength(1);
    expect(created[0].payload.task).toBe("now say goodbye");
    expect(lines.every((event) => event.type === "summary" || event.run === summary.run)).toBe(true);

    const continued = await aideRun(["--continue", "one more time", "--json", "--workspace", workspace], env);
    const next = jsonLines(continued);
    expect(next.at(-1)).toMatchObject({ type: "summary", session, exit_code: continued.code });
    expect(next.at(-1)!.run).not.toBe(summary.run);
    expect(next.find((event) => event.type === "run.created")!.payload.task).toBe("one more time");
  }, 240_000);

  it("a config file with an unknown or bad field is refused naming the field (exit 2)", async () => {
    const config = join(root, "run.json");
    writeFileSync(config, JSON.stringify({ allow_command: ["echo"], auto_approve: "everything" }));
    const bad = await aideRun(["task", "--workspace", workspace, "--config", config], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("field auto_approve");
    writeFileSync(config, JSON.stringify({ deny_rset: true }));
    const typo = await aideRun(["task", "--workspace", workspace, "--config", config], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/deny_rset.*known: allow_command, auto_approve, deny_rest, approval_timeout/);
    expect(bad.stdout + typo.stdout).toBe("");
  }, 60_000);

  it("--json ends with a summary line even when the run fails before a session exists", async () => {
    const noTask = await aideRun(["--json"], env);
    expect(noTask.code).toBe(2);
    const usage = JSON.parse(noTask.stdout.trim()) as Record<string, any>;
    expect(usage).toMatchObject({ type: "summary", outcome: "failed", exit_code: 2, error: { code: "VALIDATION" } });
    expect(usage.session).toBeUndefined();
    const missing = await aideRun(["task", "--json", "--workspace", join(root, "no-such-folder")], env);
    expect(missing.code).toBe(1);
    const last = JSON.parse(missing.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, any>;
    expect(last).toMatchObject({ type: "summary", outcome: "failed", exit_code: 1, error: { code: "WORKSPACE_NOT_FOUND" } });
    // Only the summary is on stdout: people's messages stay on stderr.
    expect(missing.stdout.trim().split("\n")).toHaveLength(1);
  }, 60_000);
});
