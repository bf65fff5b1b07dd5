/**
 * `aide eval`'s runner end to end: the real stack (`aide up`, sandboxed services), sessions started
 * and followed headless through the gateway, the scripted provider replaying an oracle transcript
 * (the check passes), a wrong one (the run may claim done; the check fails and the report counts a
 * false done, never a pass), and a question; then the hidden checks and the report. A/B arms: the
 * arm's settings reach the orchestrator (its prompt tier, scheduler and context policy show in
 * the events), `run.created` records them, and the two arms asked the model different prompts.
 * The instructions arm: `off` loads no AGENTS.md, `on` (and an eval without the setting) trusts it,
 * and an oracle that follows it only when it is in its prompt passes only there.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson, startStackProcess, type StackProcess } from "../helpers/stack-process.js";
import { runEval, type EvalRunOptions } from "../../cli/src/eval/run-eval.js";
import { buildReport, readResults, scoreVariants } from "../../cli/src/eval/eval-report.js";
import { reportMarkdown } from "../../cli/src/eval/report-markdown.js";
import { parseArms } from "../../cli/src/eval/parse-arm.js";
import { writeReport } from "../../cli/src/eval/write-report.js";
import { strategySettingNames } from "../../contracts/src/experiment-settings.js";

/** Each on/off strategy of the setting table, as a plain run records it. */
const plainStrategies = Object.fromEntries(strategySettingNames.map((name) => [name, false]));

const repo = resolve(import.meta.dirname, "../..");
const transcripts = join(repo, "tests", "eval", "transcripts");
const readEvents = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

describe("aide eval run over the real stack", () => {
  let home: string;
  let stack: StackProcess;
  let common: Omit<EvalRunOptions, "select" | "models" | "out" | "run">;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "aide-eval-home-"));
    // A model that takes 60 s for its first reply: the attempt's budget ends it.
    writeFileSync(join(home, "slow.json"), JSON.stringify({ replies: [{ text: "<read_file>\n<path>src/range.js</path>\n</read_file>", delay_ms: 60_000 }] }));
    writeFileSync(
      join(home, "models.json"),
      JSON.stringify({
        default: "range-oracle",
        models: [
          ...["range-oracle", "range-wrong", "port-oracle", "lib-oracle"].map((id) => ({ id, provider: "scripted", transcript: join(transcripts, `${id}.json`) })),
          { id: "slow", provider: "scripted", transcript: join(home, "slow.json") },
        ],
      }),
    );
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", join(home, "eval")] });
    common = {
      tasksDir: join(repo, "eval", "tasks"),
      repeat: 1,
      parallel: 2,
      budgetMs: 120_000,
      hidden: [home],
      nodePath: join(repo, "node_modules"),
      connection: { baseUrl: stack.gatewayUrl.replace(/\/$/, ""), token: stack.token },
    };
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("records the truth of each attempt: the oracle passes, the wrong fix is a false done, the question is answered", async () => {
    const out = join(home, "eval", "run-1");
    await runEval({ ...common, out, run: "run-1", select: ["js-range-off-by-one"], models: ["range-oracle", "range-wrong"] });
    await runEval({ ...common, out, run: "run-1", select: ["py-default-port"], models: ["port-oracle"] });
    const records = readResults([out]);
    const byModel = Object.fromEntries(records.map((record) => [record.model, record]));
    expect(byModel["range-oracle"]).toMatchObject({ task: "js-range-off-by-one", outcome: "done", check_passed: true });
    expect(byModel["range-oracle"].iterations).toBe(4);
    expect(byModel["range-oracle"].tool_calls).toBeGreaterThanOrEqual(3);
    // The scripted provider does not say what it evaluated: KV reuse is unknown, not zero.
    expect(byModel["range-oracle"].evaluated_prompt_tokens).toBeUndefined();
    expect(byModel["range-oracle"].experiment).toEqual({
      strategy: "agent-loop-v3",
      scheduler: "safe-parallel-v1",
      context_policy: "stable-prefix-compact-v1",
      edit_format: "routed-v1",
      edit_format_source: "default",
      // Every on/off strategy of the setting table, off unless set.
      ...plainStrategies,
      completion_grammar: "off",
    });
    // The wrong fix is "verified" by its own command, so the run claims done: the check says otherwise.
    expect(byModel["range-wrong"]).toMatchObject({ outcome: "done", check_passed: false });
    expect(byModel["port-oracle"]).toMatchObject({ task: "py-default-port", check_passed: true });
    // Each attempt's events are kept, one JSON line each, with the session's start.
    const events = readEvents(join(out, byModel["range-oracle"].events));
    expect(events.some((event) => event.type === "run.created")).toBe(true);
    expect(events.at(-1).type).toBe("run.completed");
    expect(existsSync(join(out, "work", byModel["range-oracle"].attempt, "src", "range.js"))).toBe(true);

    const scores = Object.fromEntries(scoreVariants(records).map((score) => [score.variant, score]));
    expect(scores["range-oracle"]).toMatchObject({ passed: 1, false_done: 0 });
    expect(scores["range-wrong"].passed).toBe(0);
    // A done whose check failed is a false done, never a pass, and the honesty figure shows it.
    expect(scores["range-wrong"]).toMatchObject({ false_done: 1, agreement: 0 });
    const markdown = reportMarkdown(buildReport(records));
    expect(markdown).toContain("| range-wrong | 1 | 1 of 2 | 0 (0 %) | 1 | 1 | 0 % |");
    expect(markdown).toMatch(/range-oracle vs range-wrong \(1 paired attempts\)[\s\S]*not significant/);
  });

  it("an arm's settings reach the orchestrator and run.created, and the arms ask the model different prompts", async () => {
    const out = join(home, "eval", "run-arms");
    const arms = parseArms(["full=prompt_tier=full", "lean=prompt_tier=compact,scheduler=serial-v1,context_policy=stable-prefix-drop-v1,grammar=off,edit_format=routed-v1"]);
    const records = await runEval({ ...common, out, run: "run-arms", select: ["js-range-off-by-one"], models: ["range-oracle"], arms });
    const byArm = Object.fromEntries(records.map((record) => [record.arm, record]));
    expect(Object.keys(byArm).sort()).toEqual(["full", "lean"]);
    expect(byArm.lean.experiment).toEqual({
      strategy: "agent-loop-v3",
      scheduler: "serial-v1",
      context_policy: "stable-prefix-drop-v1",
      edit_format: "routed-v1",
      edit_format_source: "setting",
      arm: "lean",
      prompt_tier: "compact",
      grammar: false,
      // Every on/off strategy of the setting table, off unless set.
      ...plainStrategies,
      completion_grammar: "off",
    });
    expect(byArm.full.experiment).toMatchObject({ arm: "full", prompt_tier: "full", scheduler: "safe-parallel-v1" });
    const lean = readEvents(join(out, byArm.lean.events));
    const full = readEvents(join(out, byArm.full.events));
    expect(lean.find((event) => event.type === "run.created").payload.experiment).toMatchObject({ arm: "lean", prompt_tier: "compact", scheduler: "serial-v1" });
    // Every event of the lean run carries its scheduler and context policy in the envelope.
    expect(new Set(lean.map((event) => `${event.scheduler} ${event.context_policy}`))).toEqual(new Set(["serial-v1 stable-prefix-drop-v1"]));
    expect(new Set(full.map((event) => event.scheduler))).toEqual(new Set(["safe-parallel-v1"]));
    // The orchestrator built each arm's context in its tier: the compact prompt is the smaller one.
    const firstContext = (events: any[]) => events.find((event) => event.type === "context.built").payload;
    expect(firstContext(lean).tier).toBe("compact");
    expect(firstContext(full).tier).toBe("full");
    expect(firstContext(lean).chars).toBeLessThan(firstContext(full).chars);
    const firstPrompt = (events: any[]) => events.find((event) => event.type === "model.responded").payload.prompt_tokens;
    expect(firstPrompt(lean)).toBeLessThan(firstPrompt(full));
    expect(byArm.lean.prompt_tokens).toBeLessThan(byArm.full.prompt_tokens);

    // The report compares the arms on the same task, files under the names the panel serves.
    const { report, files } = await writeReport(out, readResults([out]));
    expect(files.map((file) => file.slice(out.length + 1)).sort()).toEqual(["pass-vs-time.svg", "report.html", "report.json", "report.md"]);
    const json = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(json.variants.map((variant: { variant: string }) => variant.variant)).toEqual(["range-oracle / full", "range-oracle / lean"]);
    expect(json.comparisons).toHaveLength(1);
    expect(report.comparisons[0]).toMatchObject({ a: "range-oracle / full", b: "range-oracle / lean", pairs: 1, significant: false });
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("range-oracle / full vs range-oracle / lean (1 paired attempts)");
  });

  it("the instructions arm: off loads none, on and no setting trust the AGENTS.md, and only a prompt that held it passes", async () => {
    const out = join(home, "eval", "run-instructions");
    const arms = parseArms(["instructions-off=instructions=off", "instructions-on=instructions=on"]);
    const armed = await runEval({ ...common, out, run: "run-instructions", select: ["js-agents-module-in-lib"], models: ["lib-oracle"], arms });
    const [plain] = await runEval({ ...common, out, run: "run-instructions", select: ["js-agents-module-in-lib"], models: ["lib-oracle"] });
    const byArm = Object.fromEntries(armed.map((record) => [record.arm, record]));
    expect(byArm["instructions-off"]).toMatchObject({ instructions_loaded: [], check_passed: false });
    expect(byArm["instructions-off"].experiment).toMatchObject({ arm: "instructions-off", instructions: false });
    expect(byArm["instructions-on"]).toMatchObject({ instructions_loaded: [{ path: "AGENTS.md", truncated: false }], check_passed: true });
    expect(byArm["instructions-on"].experiment).toMatchObject({ instructions: true });
    expect(plain).toMatchObject({ instructions_loaded: [{ path: "AGENTS.md" }], check_passed: true });
    const loadedOf = (record: { events: string }) => readEvents(join(out, record.events)).find((event) => event.type === "instructions.loaded");
    expect(loadedOf(byArm["instructions-off"])).toBeUndefined();
    expect(loadedOf(byArm["instructions-on"]).payload.files[0].source).toBe("setting");
    expect(loadedOf(plain).payload.files[0].source).toBe("flag");
    // The same oracle in both arms: what differed is the prompt, which the on arm made larger.
    expect(byArm["instructions-on"].prompt_tokens).toBeGreaterThan(byArm["instructions-off"].prompt_tokens);
  });

  it("aborts a session past its budget: the attempt is aborted, its check still runs and fails", async () => {
    const out = join(home, "eval", "run-budget");
    const [record] = await runEval({ ...common, budgetMs: 2_000, out, run: "run-budget", select: ["js-range-off-by-one"], models: ["slow"] });
    expect(record).toMatchObject({ outcome: "aborted", check_passed: false });
    expect(readEvents(join(out, record.events)).at(-1).type).toBe("run.cancelled");
  });

  it("warmUp loads each model with one session aborted at its first model request, before and apart from the attempts", async () => {
    const out = join(home, "eval", "run-warm");
    const warmed: Array<{ model: string; problem?: string }> = [];
    const records = await runEval({
      ...common,
      out,
      run: "run-warm",
      select: ["js-range-off-by-one"],
      models: ["range-oracle"],
      warmUp: true,
      onWarmUp: (model, _ms, problem) => warmed.push({ model, ...(problem !== undefined ? { problem } : {}) }),
    });
    // Once, and it reached its first model request (a problem would be named).
    expect(warmed).toEqual([{ model: "range-oracle" }]);
    // Only the attempts are recorded (no warm-up attempt, events file or folder), and the oracle's replay was not disturbed.
    expect(records.map((record) => record.model)).toEqual(["range-oracle"]);
    expect(readResults([out]).map((record) => record.attempt)).not.toContainEqual(expect.stringContaining("warm"));
    expect(existsSync(join(out, "warm-up"))).toBe(false);
    expect(records[0]).toMatchObject({ outcome: "done", check_passed: true });
  }, 180_000);

  it("refuses an unknown setting or value at the start, with VALIDATION naming it", async () => {
    const workspace = join(home, "eval");
    const unknownValue = await postJson(stack, "/api/agent/start", { task: "hi", workspace, experiment: { scheduler: "fastest" } });
    expect(unknownValue.status).toBe(400);
    expect(unknownValue.body.error.code).toBe("VALIDATION");
    expect(unknownValue.body.error.message).toContain("scheduler");
    const unknownSetting = await postJson(stack, "/api/agent/start", { task: "hi", workspace, experiment: { temperature: 2 } });
    expect(unknownSetting.status).toBe(400);
    expect(unknownSetting.body.error.code).toBe("VALIDATION");
    expect(unknownSetting.body.error.message).toContain("temperature");
  });
});
