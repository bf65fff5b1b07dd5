/**
 * bench:model-speed — where a real small model's time goes, per path, in CPU
 * time as well as wall time (the 2-core machine is shared: wall tokens/s there varies ±2x between
 * identical runs; CPU time per token is what a path costs). For each real model in the shared cache,
 * one run, the arms interleaved (A B A B …) so the load hits them alike:
 *  - in-process node-llama-cpp with the model service's context (8192 per sequence, 4 sequences,
 *    1 thread), flash attention off (the library's default) and on;
 *  - the same through the model service itself (bus, prompt rendering, delta batching included);
 *  - the real llama-server (-t 1, -c 8192), flash attention off and on (its default is auto = on).
 * Each sample: prefill of the same ~400-token prompt on a fresh sequence (or cache_prompt off),
 * then 64 greedy tokens. Writes bench/results/model-speed.json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { findLlamaServer, modelCacheDir, modelCatalog, realModelIds, type RealModelId } from "@aide/model";
import { percentile, writeBenchResult } from "./lib/results.js";
import { timed } from "./lib/process-cpu.js";
import { startLlamaServerProcess, startModelServiceProcess } from "./lib/real-model-processes.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GEN = 64;
const PROMPT_TOKENS = 400;
const median = (values: number[]) => Math.round(percentile(values, 50) * 10) / 10;
const SOURCE = Array.from({ length: 40 }, (_, i) => `def f${i}(x):\n    """Return x times ${i}."""\n    return x * ${i}\n`).join("\n");
const USER = `Here is calc.py:\n${SOURCE}\nExplain what f3 does, then write a test for it.`;

interface Sample {
  prefillWallTokS: number;
  prefillCpuTokS: number;
  genWallTokS: number;
  genCpuTokS: number;
  load: number;
}
type Arm = { name: string; sample(): Promise<Sample>; close(): Promise<void> };

function rates(prompt: number, gen: number, pre: { wall: number; cpu: number }, dec: { wall: number; cpu: number }): Sample {
  return { prefillWallTokS: (prompt / pre.wall) * 1000, prefillCpuTokS: (prompt / pre.cpu) * 1000, genWallTokS: (gen / dec.wall) * 1000, genCpuTokS: (gen / dec.cpu) * 1000, load: loadavg()[0] };
}

async function directArms(file: string): Promise<Arm[]> {
  const { getLlama, LlamaCompletion, LlamaLogLevel } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: file });
  const text = `<|im_start|>user\n${USER}<|im_end|>\n<|im_start|>assistant\n`;
  const prompt = model.tokenize(text, true).slice(-PROMPT_TOKENS);
  const arm = async (flashAttention: boolean): Promise<Arm> => {
    const context = await model.createContext({ contextSize: 8192, sequences: 4, threads: 1, flashAttention });
    return {
      name: `in-process, flash attention ${flashAttention ? "on" : "off"}`,
      async sample() {
        const sequence = context.getSequence();
        try {
          const pre = await timed(process.pid, () => sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1)));
          const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
          const before = sequence.tokenMeter.getState().usedOutputTokens;
          const dec = await timed(process.pid, () =>
            completion.generateCompletion(prompt.slice(-1), { maxTokens: GEN, temperature: 0, onTextChunk: () => undefined, disableContextShift: true, contextShiftSize: 1 }),
          );
          const generated = sequence.tokenMeter.getState().usedOutputTokens - before;
          completion.dispose({ disposeSequence: false });
          return rates(prompt.length - 1, generated, pre, dec);
        } finally {
          await sequence.dispose();
        }
      },
      close: () => context.dispose(),
    };
  };
  return [await arm(false), await arm(true)];
}

async function serverArm(id: RealModelId, file: string, binary: string, flash: "on" | "off"): Promise<Arm> {
  const server = await startLlamaServerProcess(binary, file, ["-t", "1", "-c", "8192", "-np", "1", "-fa", flash]);
  const text = `<|im_start|>user\n${USER}<|im_end|>\n<|im_start|>assistant\n`;
  const tokens = ((await server.post("/tokenize", { content: text, add_special: true })).tokens as number[]).slice(-PROMPT_TOKENS);
  return {
    name: `llama-server, flash attention ${flash}`,
    async sample() {
      const pre = await timed(server.pid, () => server.post("/completion", { prompt: tokens, n_predict: 0, cache_prompt: false }));
      const dec = await timed(server.pid, () => server.post("/completion", { prompt: tokens, n_predict: GEN, temperature: 0, cache_prompt: true, ignore_eos: true }));
      return rates(tokens.length, Number(dec.value.tokens_predicted), pre, dec);
    },
    close: () => server.close(),
  };
}

/** The model service (node-llama-cpp behind the bus): CPU and wall per prefill and per decode. */
async function serviceArm(id: RealModelId, file: string, flash: boolean, dir: string): Promise<Arm> {
  const service = await startModelServiceProcess(id, file, join(dir, `svc-${flash ? "fa" : "nofa"}`), { contextSize: 8192, maxOutputTokens: GEN, ...(flash ? {} : { flashAttention: false }) });
  let n = 0;
  const chat = (session: string, maxTokens: number) =>
    service.chat({ request_id: `s${++n}`, session, stream: true, max_tokens: maxTokens, temperature: 0, tools: [], messages: [{ role: "user", content: USER }] });
  await chat("load", 1);
  return {
    name: `model service, flash attention ${flash ? "on" : "off"}`,
    async sample() {
      // Prefill: a 1-token reply on a fresh session; decode: the same messages again on that
      // session (the prompt is cached, ~1 token evaluated), GEN tokens.
      const session = `speed-${n}`;
      const pre = await timed(service.pid, () => chat(session, 1));
      const dec = await timed(service.pid, () => chat(session, GEN));
      const prompt = pre.value.usage.evaluated_prompt_tokens ?? pre.value.usage.prompt_tokens;
      return rates(prompt, dec.value.usage.completion_tokens, pre, dec);
    },
    close: () => service.close(),
  };
}

async function main(): Promise<void> {
  const binary = findLlamaServer(process.env, { python: true });
  const dir = mkdtempSync(join(tmpdir(), "aide-model-speed-"));
  const figures: Record<string, unknown> = { rounds: ROUNDS, prompt_tokens: PROMPT_TOKENS, gen_tokens: GEN };
  const only = process.env.BENCH_MODELS?.split(";");
  try {
    for (const id of realModelIds) {
      if (only && !only.includes(id)) continue;
      const file = join(modelCacheDir(), modelCatalog[id].fileName);
      const arms: Arm[] = [...(await directArms(file)), await serviceArm(id, file, false, dir), await serviceArm(id, file, true, dir)];
      if (binary) arms.push(await serverArm(id, file, binary, "off"), await serverArm(id, file, binary, "on"));
      const samples = new Map<string, Sample[]>(arms.map((arm) => [arm.name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const arm of arms) {
          const sample = await arm.sample();
          samples.get(arm.name)?.push(sample);
          process.stderr.write(`${id} round ${round + 1} ${arm.name}: ${JSON.stringify(sample, (_k, v: unknown) => (typeof v === "number" ? Math.round(v * 10) / 10 : v))}\n`);
        }
      }
      for (const arm of arms) await arm.close();
      figures[id] = Object.fromEntries(
        [...samples].map(([name, list]) => [
          name,
          {
            prefill_cpu_tok_s: median(list.map((s) => s.prefillCpuTokS)),
            gen_cpu_tok_s: median(list.map((s) => s.genCpuTokS)),
            prefill_wall_tok_s: median(list.map((s) => s.prefillWallTokS)),
            gen_wall_tok_s: median(list.map((s) => s.genWallTokS)),
            load_avg: median(list.map((s) => s.load)),
          },
        ]),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${writeBenchResult("model-speed", figures)}\n${JSON.stringify(figures, null, 2)}\n`);
}

await main();
