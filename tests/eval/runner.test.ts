/**
 * `aide eval`'s runner end to end: the real stack (`aide up`, sandboxed services), sessions run
 * headless by `aide run --json`, the scripted provider replaying an oracle transcript (the check
 * passes), a wrong one (the run may claim done; the check fails and the report counts a false
 * done, never a pass), and a question; then the hidden checks and the report.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStackProcess, type StackProcess } from "../helpers/stack-process.js";
import { runEval } from "../../cli/src/eval/run-eval.js";
import { readResults, reportMarkdown, scoreModels } from "../../cli/src/eval/eval-report.js";

const repo = resolve(import.meta.dirname, "../..");
const transcripts = join(repo, "tests", "eval", "transcripts");

describe("aide eval run over the real stack", () => {
  let home: string;
  let stack: StackProcess;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-eval-home-"));
    writeFileSync(join(home, "models.json"), JSON.stringify({
      default: "range-oracle",
      models: ["range-oracle", "range-wrong", "port-oracle"].map((id) => ({ id, provider: "scripted", transcript: join(transcripts, `${id}.json`) })),
    }));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", join(home, "eval")] });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("records the truth of each attempt: the oracle passes, the wrong fix is a false done, the question is answered", async () => {
    const out = join(home, "eval", "run-1");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_HOME: home };
    const common = { tasksDir: join(repo, "eval", "tasks"), repeat: 1, parallel: 2, budgetMs: 120_000, out, run: "run-1", env, hidden: [home], nodePath: join(repo, "node_modules") };
    await runEval({ ...common, select: ["js-range-off-by-one"], models: ["range-oracle", "range-wrong"] });
    await runEval({ ...common, select: ["py-default-port"], models: ["port-oracle"] });
    const records = readResults([out]);
    const byModel = Object.fromEntries(records.map((record) => [record.model, record]));
    expect(byModel["range-oracle"]).toMatchObject({ task: "js-range-off-by-one", outcome: "done", check_passed: true });
    expect(byModel["range-oracle"].iterations).toBe(4);
    expect(byModel["range-oracle"].tool_calls).toBeGreaterThanOrEqual(3);
    // The wrong fix is "verified" by its own command, so the run claims done: the check says otherwise.
    expect(byModel["range-wrong"]).toMatchObject({ outcome: "done", check_passed: false });
    expect(byModel["port-oracle"]).toMatchObject({ task: "py-default-port", check_passed: true });
    // Each attempt's events are kept, one JSON line each, with the session's start.
    const events = readFileSync(join(out, byModel["range-oracle"].events), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(events.some((event) => event.type === "run.created")).toBe(true);
    expect(existsSync(join(out, "work", byModel["range-oracle"].attempt, "src", "range.js"))).toBe(true);

    const scores = Object.fromEntries(scoreModels(records).map((score) => [score.model, score]));
    expect(scores["range-oracle"]).toMatchObject({ passed: 1, false_done: 0 });
    expect(scores["range-wrong"].passed).toBe(0);
    // A done whose check failed is a false done, never a pass.
    expect(scores["range-wrong"].false_done).toBe(1);
    const markdown = reportMarkdown(records);
    expect(markdown).toContain("| range-wrong | 1 | 0 (0 %)");
    expect(markdown).toMatch(/range-oracle vs range-wrong/);
  });
});
