/**
 * `aide eval` as a real process: a bad `--arm` is a usage error (exit 2) naming the setting and
 * what it accepts, before any stack starts; `aide eval report RUN…` writes the report's four files
 * into the last run's folder (the names the web panel serves); `--fill RUN` runs only what an
 * earlier run lacks, numbered after its repeats.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";

const main = join(repoRoot, "cli", "dist", "main.js");
const homes: string[] = [];
afterAll(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));

function aide(args: string[]) {
  const home = mkdtempSync(join(tmpdir(), "aide-eval-cli-"));
  homes.push(home);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1" };
  return { home, result: spawnSync(process.execPath, [main, ...args], { env, encoding: "utf8", timeout: 60_000 }) };
}

const record = (task: string, arm: string, passed: boolean) => ({
  run: "run-a",
  attempt: `${task}--m--${arm}--0`,
  task,
  language: "python",
  category: "bug",
  difficulty: "easy",
  model: "m",
  arm,
  repeat: 0,
  outcome: passed ? "done" : "unverified",
  check_passed: passed,
  check_exit_code: passed ? 0 : 1,
  check_timed_out: false,
  iterations: 2,
  prompt_tokens: 100,
  completion_tokens: 10,
  tool_calls: 2,
  tool_errors: 0,
  model_ms: 5,
  wall_ms: 1000,
  session_ms: 900,
  check_ms: 50,
  events: "events/x.jsonl",
});

describe("aide eval", () => {
  it("refuses an unknown arm setting or value with exit 2, before starting anything", () => {
    const { home, result } = aide(["eval", "run", "--model", "m", "--arm", "fast=scheduler=fastest"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("scheduler is one of safe-parallel-v1, serial-v1");
    expect(existsSync(join(home, "stack.json"))).toBe(false);
    const unknown = aide(["eval", "run", "--model", "m", "--arm", "hot=temperature=1"]).result;
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown setting "temperature"');
  });

  it("report RUN… writes report.md, report.html, report.json and pass-vs-time.svg into the last run's folder", () => {
    const root = mkdtempSync(join(tmpdir(), "aide-eval-runs-"));
    homes.push(root);
    const [first, last] = [join(root, "run-a"), join(root, "run-b")];
    mkdirSync(first);
    mkdirSync(last);
    writeFileSync(join(first, "results.jsonl"), [record("t1", "x", true), record("t2", "x", false)].map((line) => JSON.stringify(line)).join("\n") + "\n");
    writeFileSync(join(last, "results.jsonl"), [record("t1", "y", true), record("t2", "y", true)].map((line) => JSON.stringify(line)).join("\n") + "\n");
    const { result } = aide(["eval", "report", first, last]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("| m / y | 2 | 2 × 1 | 2 (100 %)");
    expect(result.stdout).toContain("m / x vs m / y (2 paired attempts)");
    for (const name of ["report.md", "report.html", "report.json", "pass-vs-time.svg"]) expect(existsSync(join(last, name)), name).toBe(true);
    expect(existsSync(join(first, "report.json"))).toBe(false);
    expect(JSON.parse(readFileSync(join(last, "report.json"), "utf8")).variants).toHaveLength(2);
  });

  it("--out outside $AIDE_HOME/eval: a stack of the run's own serves that folder, so the attempt really runs", async () => {
    const home = mkdtempSync(join(tmpdir(), "aide-eval-out-"));
    const out = mkdtempSync(join(tmpdir(), "aide-eval-elsewhere-"));
    homes.push(home, out);
    const transcript = join(home, "oracle.json");
    const replies = ["<read_file>\n<path>mathutil.py</path>\n</read_file>", "<attempt_completion>\n<result>Read mathutil.py.</result>\n</attempt_completion>"];
    writeFileSync(transcript, JSON.stringify({ replies: replies.map((text) => ({ text })) }));
    writeFileSync(join(home, "models.json"), JSON.stringify({ default: "oracle", models: [{ id: "oracle", provider: "scripted", transcript }] }));
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1", AIDE_MODEL_DISCOVERY: "off" };
    const child = spawn(process.execPath, [main, "eval", "run", "--model", "oracle", "--tasks", "py-factorial-zero", "--out", out, "--budget", "120"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((done) => child.on("exit", done));
    expect(status, stderr).toBe(0);
    const [line] = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text) as { code?: string; outcome: string; tool_calls: number });
    expect(line.code, stderr).not.toBe("WORKSPACE_NOT_ALLOWED");
    expect(line.outcome).not.toBe("error");
    // The read ran in the served folder: the session's own tool call, not a refusal.
    expect(line.tool_calls).toBeGreaterThanOrEqual(1);

    // --fill: a second run holds only what the first lacks for two attempts, numbered after its repeat 0.
    const second = mkdtempSync(join(tmpdir(), "aide-eval-fill-"));
    homes.push(second);
    const filling = spawn(process.execPath, [main, "eval", "run", "--model", "oracle", "--tasks", "py-factorial-zero", "--repeat", "2", "--fill", out, "--out", second, "--budget", "120"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let fillOut = "";
    let fillErr = "";
    filling.stdout.on("data", (chunk: Buffer) => (fillOut += chunk.toString()));
    filling.stderr.on("data", (chunk: Buffer) => (fillErr += chunk.toString()));
    expect(await new Promise<number | null>((done) => filling.on("exit", done)), fillErr).toBe(0);
    expect(fillErr).toContain(`1 attempt to fill ${out} up to 2 per task, model and arm`);
    const added = readFileSync(join(second, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text) as { task: string; repeat: number; outcome: string });
    expect(added.map(({ task, repeat }) => ({ task, repeat }))).toEqual([{ task: "py-factorial-zero", repeat: 1 }]);
    expect(added[0].outcome).not.toBe("error");
    expect(fillOut).toContain(`with the runs it filled: aide eval report ${out} ${second}`);
  }, 240_000);

  it("--fill with nothing missing says so and starts no stack; a folder without results is a usage error", () => {
    const root = mkdtempSync(join(tmpdir(), "aide-eval-filled-"));
    homes.push(root);
    writeFileSync(
      join(root, "results.jsonl"),
      [record("py-factorial-zero", "x", false), { ...record("py-factorial-zero", "x", true), repeat: 1 }].map((line) => JSON.stringify(line)).join("\n") + "\n",
    );
    const out = join(root, "next");
    const { home, result } = aide(["eval", "run", "--model", "m", "--arm", "x=grammar=off", "--tasks", "py-factorial-zero", "--repeat", "2", "--fill", root, "--out", out]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`nothing to run: every selected task, model and arm has 2 attempts in ${root}`);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(home, "stack.json"))).toBe(false);
    const empty = mkdtempSync(join(tmpdir(), "aide-eval-empty-"));
    homes.push(empty);
    const refused = aide(["eval", "run", "--model", "m", "--fill", empty]).result;
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`--fill ${empty}: no results.jsonl there`);
  });

  it("--out outside $AIDE_HOME/eval with a stack already running is refused before any attempt, naming the fix", () => {
    const home = mkdtempSync(join(tmpdir(), "aide-eval-running-"));
    const out = join(mkdtempSync(join(tmpdir(), "aide-eval-elsewhere-")), "run");
    homes.push(home);
    writeFileSync(join(home, "token"), "t");
    // A stack file whose supervisor is alive (this test process) stands for a running stack.
    writeFileSync(
      join(home, "stack.json"),
      JSON.stringify({ gateway_url: "http://127.0.0.1:9", token_file: join(home, "token"), nats_url: "nats://127.0.0.1:9", pid: process.pid, started_at: new Date().toISOString() }),
    );
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1" };
    const result = spawnSync(process.execPath, [main, "eval", "run", "--model", "m", "--out", out], { env, encoding: "utf8", timeout: 60_000 });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`aide up --workspace ${out}`);
    expect(existsSync(out)).toBe(false);
  });
});
