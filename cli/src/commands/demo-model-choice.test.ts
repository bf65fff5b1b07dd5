import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chooseDemoModel } from "./demo-model-choice.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function setup(variants: Array<Record<string, unknown>> | undefined, installed: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "aide-demo-choice-"));
  dirs.push(dir);
  for (const file of installed) writeFileSync(join(dir, file), "GGUF");
  const figures = join(dir, "figures.json");
  if (variants) writeFileSync(figures, JSON.stringify({ variants, arm_settings: { whole: { arm: "whole", grammar: true, grammar_scope: "reply" } } }));
  return { figures, cache: dir };
}

const smol = "SmolLM2-135M-Instruct.Q4_1.gguf";

describe("the demo's model (issue 28 item 7)", () => {
  it("replays, saying why, while nothing was measured", () => {
    const { figures, cache } = setup(undefined, [smol]);
    expect(chooseDemoModel(figures, cache)).toEqual({ kind: "replay", reason: expect.stringContaining("smollm2-135m) have not been measured on this task yet") });
    const none = setup(undefined, []);
    expect(chooseDemoModel(none.figures, none.cache)).toMatchObject({ kind: "replay", reason: expect.stringContaining("no real model has been fetched") });
  });

  it("replays below 8 of 10, naming each model tried and its rate", () => {
    const { figures, cache } = setup([{ model: "smollm2-135m", arm: "whole", passed: 3, attempts: 10, false_done: 0 }], [smol]);
    const choice = chooseDemoModel(figures, cache);
    expect(choice.kind).toBe("replay");
    expect(choice.kind === "replay" && choice.reason).toContain("smollm2-135m (whole) 3 of 10");
  });

  it("reads the measurements of the folders beside the figures too: a later run of other arms counts, a broken one is named", () => {
    const { figures, cache } = setup([{ model: "smollm2-135m", arm: "whole", passed: 0, attempts: 10, false_done: 0 }], [smol]);
    const later = join(cache, "s39-imports");
    mkdirSync(later);
    writeFileSync(join(later, "figures.json"), JSON.stringify({ variants: [{ model: "smollm2-135m", arm: "imports", passed: 8, attempts: 10, false_done: 0 }], arm_settings: { imports: { arm: "imports", follow_imports: true } } }));
    expect(chooseDemoModel(figures, cache)).toMatchObject({ kind: "real", measured: { arm: "imports", passed: 8, settings: { follow_imports: true }, path: join(later, "figures.json") } });
    writeFileSync(join(later, "figures.json"), JSON.stringify({ measured_at: "2026-12-07T13:00:00.000Z", variants: [{ model: "smollm2-135m", arm: "imports", passed: 1, attempts: 10, false_done: 0 }] }));
    // The first run's date is its report's (a checkout's file times say nothing).
    writeFileSync(join(cache, "report.json"), JSON.stringify({ generated_at: "2026-12-04T05:10:22.564Z" }));
    const replay = chooseDemoModel(figures, cache);
    expect(replay.kind === "replay" && replay.reason).toContain("tried on this task (2026-12-04 to 2026-12-07): smollm2-135m (whole) 0 of 10, smollm2-135m (imports) 1 of 10");
    writeFileSync(join(later, "figures.json"), JSON.stringify({ rows: [] }));
    expect(chooseDemoModel(figures, cache)).toEqual({ kind: "replay", reason: `${join(later, "figures.json")} is not a demo measurement` });
  });

  it("runs the fetched model with the arm's settings at 8 of 10 or better, never with a false done, never when not fetched", () => {
    const { figures, cache } = setup([{ model: "smollm2-135m", arm: "whole", passed: 9, attempts: 10, false_done: 0 }], [smol]);
    const choice = chooseDemoModel(figures, cache);
    expect(choice).toMatchObject({ kind: "real", file: join(cache, smol), measured: { model: "smollm2-135m", passed: 9, settings: { grammar: true, grammar_scope: "reply" } } });
    const dishonest = setup([{ model: "smollm2-135m", arm: "whole", passed: 9, attempts: 10, false_done: 1 }], [smol]);
    expect(chooseDemoModel(dishonest.figures, dishonest.cache).kind).toBe("replay");
    const absent = setup([{ model: "smollm2-135m", arm: "whole", passed: 10, attempts: 10, false_done: 0 }], []);
    expect(chooseDemoModel(absent.figures, absent.cache).kind).toBe("replay");
    const few = setup([{ model: "smollm2-135m", arm: "whole", passed: 5, attempts: 5, false_done: 0 }], [smol]);
    expect(chooseDemoModel(few.figures, few.cache).kind).toBe("replay");
  });
});
