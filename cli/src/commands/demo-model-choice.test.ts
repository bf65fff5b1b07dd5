import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chooseDemoModel } from "./demo-model-choice.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const smol = "SmolLM2-135M-Instruct.Q4_1.gguf";

function setup(candidates: Array<Record<string, unknown>> | undefined, installed: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "aide-demo-choice-"));
  dirs.push(dir);
  for (const file of installed) writeFileSync(join(dir, file), "GGUF");
  const file = join(dir, "demo-model.json");
  if (candidates) writeFileSync(file, JSON.stringify({ task: "js-demo-cart-total", candidates: candidates.map((entry) => ({ measured_at: "2026-12-04", ...entry })) }));
  return { file, cache: dir };
}

describe("the demo's model", () => {
  it("replays, saying why, while nothing was measured", () => {
    const { file, cache } = setup(undefined, [smol]);
    expect(chooseDemoModel(file, cache)).toEqual({ kind: "replay", reason: expect.stringContaining("smollm2-135m) have not been measured on this task yet") });
    const none = setup(undefined, []);
    expect(chooseDemoModel(none.file, none.cache)).toMatchObject({ kind: "replay", reason: expect.stringContaining("no real model has been fetched") });
  });

  it("replays below 8 of 10, naming each model tried, its rate and the days measured", () => {
    const { file, cache } = setup(
      [
        { model: "smollm2-135m", arm: "whole", passed: 3, attempts: 10, false_done: 0 },
        { model: "smollm2-135m", arm: "imports", passed: 1, attempts: 10, false_done: 0, measured_at: "2026-12-07" },
      ],
      [smol],
    );
    const choice = chooseDemoModel(file, cache);
    expect(choice.kind === "replay" && choice.reason).toContain("tried on this task (2026-12-04 to 2026-12-07): smollm2-135m (whole) 3 of 10, smollm2-135m (imports) 1 of 10");
  });

  it("names a file that is not a list of measurements", () => {
    const { file, cache } = setup(undefined, [smol]);
    writeFileSync(file, JSON.stringify({ rows: [] }));
    expect(chooseDemoModel(file, cache)).toMatchObject({ kind: "replay", reason: expect.stringContaining("is not a list of demo measurements") });
    writeFileSync(file, "{");
    expect(chooseDemoModel(file, cache)).toMatchObject({ kind: "replay", reason: expect.stringContaining("is not JSON") });
  });

  it("runs the fetched model with its settings at 8 of 10 or better, never with a false done, never when not fetched", () => {
    const { file, cache } = setup([{ model: "smollm2-135m", arm: "whole", settings: { grammar: true, grammar_scope: "reply" }, passed: 9, attempts: 10, false_done: 0 }], [smol]);
    expect(chooseDemoModel(file, cache)).toMatchObject({ kind: "real", file: join(cache, smol), measured: { model: "smollm2-135m", passed: 9, settings: { grammar: true, grammar_scope: "reply" } } });
    const dishonest = setup([{ model: "smollm2-135m", arm: "whole", passed: 9, attempts: 10, false_done: 1 }], [smol]);
    expect(chooseDemoModel(dishonest.file, dishonest.cache).kind).toBe("replay");
    const absent = setup([{ model: "smollm2-135m", arm: "whole", passed: 10, attempts: 10, false_done: 0 }], []);
    expect(chooseDemoModel(absent.file, absent.cache).kind).toBe("replay");
    const few = setup([{ model: "smollm2-135m", arm: "whole", passed: 5, attempts: 5, false_done: 0 }], [smol]);
    expect(chooseDemoModel(few.file, few.cache).kind).toBe("replay");
  });

  it("the shipped examples/demo-model.json parses", () => {
    const shipped = resolve(import.meta.dirname, "../../../examples/demo-model.json");
    const choice = chooseDemoModel(shipped, mkdtempSync(join(tmpdir(), "aide-demo-empty-")));
    expect(choice.kind).toBe("replay");
    expect(choice.kind === "replay" && choice.reason).toContain("tried on this task");
    expect(JSON.parse(readFileSync(shipped, "utf8")).task).toBe("js-demo-cart-total");
  });
});
