import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStackProcess, type StackProcess } from "../helpers/stack-process.js";
import { realModelPath, type RealModelId } from "../helpers/real-models.js";
import { checkSession, runSampleSession } from "./real-session-checks.js";

/**
 * Real sessions over the whole stack (`aide up` as a process, sandboxed services, the gateway)
 * with real instruction-following weights in the model service's node-llama-cpp provider:
 * SmolLM2-135M-Instruct and Gemma 3 270M, each on a fresh copy of examples/sample-project with
 * the demo's task. What is asserted is structure and honesty (see real-session-checks.ts), never
 * that the model fixed the bug. Bounded (turns, tokens) to stay near a minute per session on 2
 * shared cores. REAL_SESSION_FIGURES=/path appends each session's figures as a JSON line.
 */
const models: { id: RealModelId; alias: string }[] = [
  { id: "smollm2-135m", alias: "smollm2" },
  { id: "gemma3-270m", alias: "gemma3" },
];
const found = models.map((model) => ({ ...model, path: realModelPath(model.id) }));
const present = found.filter((model) => model.path !== undefined);
const MAX_ITERATIONS = 4;
/**
 * The defaults, no grammar setting: the grammar is on, over the whole reply, with the schemas'
 * rules (request-grammar.ts). Before that default, the call-scope grammar with loose values gave
 * SmolLM2 no parsed call (each reply cut inside a value; bench/results/real-sessions.md), and the
 * sessions here had to ask for reply scope and the schema rules explicitly.
 */
const experiment = { arm: "default" };

describe("real sessions with real models in the node-llama-cpp provider", () => {
  let root: string;
  let stack: StackProcess | undefined;

  beforeAll(async () => {
    if (present.length === 0) return;
    root = mkdtempSync(join(tmpdir(), "aide-real-llama-"));
    mkdirSync(join(root, "workspaces"));
    const modelsFile = join(root, "models.json");
    const common = { provider: "llama", threads: 1, maxOutputTokens: 256, maxIterations: MAX_ITERATIONS, maxSessions: 1, grammar: true, contextSize: 4096, contextBudget: 4096 };
    writeFileSync(modelsFile, JSON.stringify({ default: present[0].alias, models: present.map((model) => ({ ...common, id: model.alias, file: model.path })) }));
    stack = await startStackProcess({
      aideHome: join(root, "home"),
      args: ["--workspace", join(root, "workspaces"), "--models-config", modelsFile],
      env: { AIDE_MODEL_PROBE_TRIALS: "2", AIDE_MODEL_THREADS: "1" },
      timeoutMs: 120_000,
    });
  }, 150_000);

  afterAll(async () => {
    if (present.length === 0) return;
    const code = stack ? await stack.stop() : 0;
    // REAL_SESSION_DUMP keeps the stack's home (session records hold the raw replies).
    if (!process.env.REAL_SESSION_DUMP) rmSync(root, { recursive: true, force: true });
    expect(code, stack?.output().slice(-4000)).toBe(0);
  });

  for (const model of found) {
    const skip = model.path === undefined ? `SKIPPED: no ${model.id} GGUF in the model cache (install step: aide models pull ${model.id}): ` : "";
    it.skipIf(model.path === undefined)(
      `${skip}${model.alias}: a real act-mode session on the sample project gives only well-formed calls, no silent cut, a reused KV cache and an honest outcome`,
      async () => {
        const { events, workspace, trace } = await runSampleSession(stack!, { root: join(root, "workspaces"), model: model.alias, maxIterations: MAX_ITERATIONS, experiment, timeoutMs: 240_000 });
        expect(events[0].payload.experiment, trace).toMatchObject({ arm: "default" });
        expect(events[0].payload.experiment.grammar_scope, "the session must run the default grammar").toBeUndefined();
        if (process.env.REAL_SESSION_DUMP) writeFileSync(`${process.env.REAL_SESSION_DUMP}.${model.alias}.json`, JSON.stringify(events, null, 1));
        const figures = checkSession(events, workspace, trace, { model: model.alias, grammar: true });
        if (process.env.REAL_SESSION_FIGURES) appendFileSync(process.env.REAL_SESSION_FIGURES, JSON.stringify({ path: "llama", ...figures }) + "\n");
        rmSync(join(workspace, ".."), { recursive: true, force: true });
      },
      260_000,
    );
  }
});
