import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aideRun } from "../../tests/helpers/aide-run.js";
import { sharedModelPath as storiesPath } from "../../tests/helpers/service-process.js";
import { startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

const skip = existsSync(storiesPath) ? "" : `SKIPPED: the stories260K GGUF is absent (${storiesPath}): `;

/**
 * Issue 25: a first run on an unprobed model showed nothing while the model service probed it.
 * Over the whole stack (`aide up` as a process) with the real stories260K GGUF in node-llama-cpp:
 * the probe's progress reaches the run's event stream (`model.probing`, from `loading` to `done`)
 * before the first `model.responded`, `aide run` prints it, and a run on the probed model prints none.
 * Two registry entries on the same file with different windows are two profiles (two probes).
 */
describe.skipIf(skip !== "")(`${skip}probe progress on a model's first use`, () => {
  let root: string;
  let workspace: string;
  let stack: StackProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-probe-progress-"));
    workspace = join(root, "project");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, "README.md"), "# a story\n");
    const common = { provider: "llama", file: storiesPath, threads: 1, maxOutputTokens: 32, maxIterations: 1, maxSessions: 1, grammar: true };
    const models = join(root, "models.json");
    writeFileSync(
      models,
      JSON.stringify({
        default: "stories-a",
        models: [
          { ...common, id: "stories-a", contextSize: 1024, contextBudget: 1024 },
          { ...common, id: "stories-b", contextSize: 768, contextBudget: 768 },
        ],
      }),
    );
    const home = join(root, "home");
    stack = await startStackProcess({
      aideHome: home,
      args: ["--workspace", workspace, "--models-config", models],
      env: { AIDE_MODEL_PROBE_TRIALS: "1", AIDE_MODEL_THREADS: "1" },
      timeoutMs: 120_000,
    });
    env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, TERM: "dumb" };
  }, 150_000);
  afterAll(async () => {
    await stack?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("the run's events carry the probe's progress, loading to done, before the first model.responded", async () => {
    const { stdout } = await aideRun(["tell a story", "--workspace", workspace, "--model", "stories-a", "--deny-rest", "--json"], env);
    if (process.env.AIDE_TEST_DUMP) writeFileSync(process.env.AIDE_TEST_DUMP, stdout);
    const events = stdout
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { type: string; payload?: Record<string, any> });
    const firstResponse = events.findIndex((event) => event.type === "model.responded");
    const probing = events.map((event, index) => ({ event, index })).filter(({ event }) => event.type === "model.probing");
    expect(firstResponse, stdout.slice(-3000)).toBeGreaterThan(0);
    expect(probing.length, stdout.slice(-3000)).toBeGreaterThanOrEqual(3);
    for (const { index } of probing) expect(index).toBeLessThan(firstResponse);
    const stages = probing.map(({ event }) => event.payload?.stage);
    expect(stages[0]).toBe("loading");
    expect(stages.at(-1)).toBe("done");
    expect(stages).toContain("tool_trials");
    const percents = probing.map(({ event }) => Number(event.payload?.percent));
    expect(percents[0]).toBe(0);
    expect(percents.at(-1)).toBe(100);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(probing.every(({ event }) => event.payload?.model === "stories-a")).toBe(true);
  }, 300_000);

  it("aide run prints the progress of a first probe, and none for a model already probed", async () => {
    const first = await aideRun(["tell a story", "--workspace", workspace, "--model", "stories-b", "--deny-rest"], env);
    expect(first.stdout, first.stdout + first.stderr).toContain("⧗ first use of stories-b: probing it, loading the model — 0 %");
    expect(first.stdout).toContain("trying tool calls with and without the grammar");
    expect(first.stdout).toMatch(/✓ probed stories-b in [0-9.]+ s \(cached: later runs start at once\)/);
    const again = await aideRun(["tell a story", "--workspace", workspace, "--model", "stories-a", "--deny-rest"], env);
    expect(again.stdout, again.stdout + again.stderr).not.toContain("probing it");
    expect(again.stdout).not.toContain("✓ probed");
  }, 300_000);
});
