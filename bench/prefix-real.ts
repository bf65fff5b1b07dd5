/**
 * bench:prefix-real — a new session's first turn on the real models: how much of the shared system
 * prefix is evaluated again, in one run, three arms interleaved session by session:
 *  - the model service with its prompt-prefix cache (llama-prefix-cache.ts; on by default);
 *  - the same service with AIDE_MODEL_PREFIX_CACHE=0 (every first turn evaluates its whole prompt);
 *  - the anchor: a real llama-server (-np 1, -t 1, -c 8192) asked through /v1/chat/completions with
 *    `cache_prompt: true` (what our OpenAI provider sends it), its own prompt cache as it ships.
 * SESSIONS first turns per arm, each a new session: one ~450-token system prompt (an agent's rules
 * and tool list) and a different task; 8 greedy tokens. Figures: evaluated prompt tokens (the
 * service's `evaluated_prompt_tokens`, the server's `timings.prompt_n`) and wall and CPU time per
 * first turn, for the turns after the first two (the cache's steady state: SmolLM2 reuses from the
 * second turn, a sliding-window model like Gemma 3 from the third), and the ratios against the
 * cache-off arm and llama-server. Writes bench/results/prefix-real.json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { findLlamaServer, modelCacheDir, modelCatalog, realModelIds } from "@aide/model";
import { timed } from "./lib/process-cpu.js";
import { percentile, writeBenchResult } from "./lib/results.js";
import { startLlamaServerProcess, startModelServiceProcess } from "./lib/real-model-processes.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 8);
const STEADY_FROM = 2;
const TOOLS = [
  "read_file(path)",
  "list_dir(path)",
  "search_files(pattern, path)",
  "replace_in_file(path, search, replace)",
  "write_file(path, content)",
  "run_command(command, timeout_ms)",
  "attempt_completion(result)",
];
const SYSTEM = [
  "You are a coding agent working in the user's project. Answer with exactly one tool call per reply.",
  ...Array.from({ length: 14 }, (_, i) => `Rule ${i + 1}: read a file before you change it, change only what the task needs, and run the project's tests after a change.`),
  `Tools: ${TOOLS.join("; ")}.`,
].join("\n");
const TASKS = [
  "Fix the failing test in test/cart.test.js.",
  "Add a --verbose flag to the CLI.",
  "Rename parseKV to parseKeyValue everywhere.",
  "Why does go test fail in ./clock?",
  "Make slugify drop accents.",
  "Write a test for range(1, 5).",
  "Add a CHANGELOG entry for 1.2.0.",
  "Fix the off-by-one in paginate().",
];

interface Turn {
  prompt: number;
  evaluated: number;
  wallMs: number;
  cpuMs: number;
}
interface Arm {
  name: string;
  turn(index: number): Promise<Turn>;
  close(): Promise<void>;
}

const messages = (index: number) => [
  { role: "system", content: SYSTEM },
  { role: "user", content: TASKS[index % TASKS.length] },
];

async function serviceArm(id: string, file: string, home: string, cache: boolean): Promise<Arm> {
  const service = await startModelServiceProcess(id, file, home, { contextSize: 8192, maxOutputTokens: 8, maxSessions: 2 }, { AIDE_MODEL_PREFIX_CACHE: cache ? "1" : "0" });
  await service.chat({ request_id: "load", session: "load", stream: false, max_tokens: 1, temperature: 0, messages: [{ role: "user", content: "hi" }] });
  return {
    name: `model service, prefix cache ${cache ? "on" : "off"}`,
    async turn(index) {
      const {
        value,
        wall: wallMs,
        cpu,
      } = await timed(service.pid, () => service.chat({ request_id: `t${index}`, session: `first-${index}`, stream: false, max_tokens: 8, temperature: 0, seed: 1, messages: messages(index) }));
      return { prompt: value.usage.prompt_tokens, evaluated: value.usage.evaluated_prompt_tokens ?? value.usage.prompt_tokens, wallMs, cpuMs: cpu };
    },
    close: () => service.close(),
  };
}

async function serverArm(file: string, binary: string): Promise<Arm> {
  const server = await startLlamaServerProcess(binary, file, ["-t", "1", "-c", "8192", "-np", "1"]);
  await server.post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }], max_tokens: 1 });
  return {
    name: "llama-server, cache_prompt",
    async turn(index) {
      const {
        value,
        wall: wallMs,
        cpu,
      } = await timed(server.pid, () => server.post("/v1/chat/completions", { messages: messages(index), max_tokens: 8, temperature: 0, seed: 1, cache_prompt: true }));
      const timings = value.timings as { prompt_n: number; cache_n?: number } | undefined;
      const usage = value.usage as { prompt_tokens: number } | undefined;
      if (!timings || !usage) throw new Error(`llama-server answered without timings or usage: ${JSON.stringify(value).slice(0, 300)}`);
      return { prompt: usage.prompt_tokens, evaluated: timings.prompt_n, wallMs, cpuMs: cpu };
    },
    close: () => server.close(),
  };
}

const median = (values: number[]) => Math.round(percentile(values, 50) * 10) / 10;
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);

async function main(): Promise<void> {
  const binary = findLlamaServer(process.env, { python: true });
  const dir = mkdtempSync(join(tmpdir(), "aide-prefix-real-"));
  const only = process.env.BENCH_MODELS?.split(";");
  const figures: Record<string, unknown> = { sessions: SESSIONS, steady_from_session: STEADY_FROM + 1, output_tokens: 8, threads: 1, load_avg_start: loadavg()[0] };
  try {
    for (const id of realModelIds) {
      if (only && !only.includes(id)) continue;
      const file = join(modelCacheDir(), modelCatalog[id].fileName);
      const arms = [await serviceArm(id, file, join(dir, `${id}-on`), true), await serviceArm(id, file, join(dir, `${id}-off`), false)];
      if (binary) arms.push(await serverArm(file, binary));
      const turns = new Map<string, Turn[]>(arms.map((arm) => [arm.name, []]));
      for (let index = 0; index < SESSIONS; index++) {
        for (const arm of arms) {
          const turn = await arm.turn(index);
          turns.get(arm.name)?.push(turn);
          process.stderr.write(`${id} session ${index + 1} ${arm.name}: ${JSON.stringify({ ...turn, wallMs: Math.round(turn.wallMs), cpuMs: Math.round(turn.cpuMs) })}\n`);
        }
      }
      for (const arm of arms) await arm.close();
      const steady = (name: string) => (turns.get(name) ?? []).slice(STEADY_FROM);
      const summary = Object.fromEntries(
        [...turns].map(([name, list]) => [
          name,
          {
            evaluated_per_turn: list.map((turn) => turn.evaluated),
            prompt_per_turn: list.map((turn) => turn.prompt),
            steady_evaluated_median: median(steady(name).map((turn) => turn.evaluated)),
            steady_wall_ms_median: median(steady(name).map((turn) => turn.wallMs)),
            steady_cpu_ms_median: median(steady(name).map((turn) => turn.cpuMs)),
          },
        ]),
      );
      const on = summary["model service, prefix cache on"];
      const off = summary["model service, prefix cache off"];
      const server = summary["llama-server, cache_prompt"];
      figures[id] = {
        ...summary,
        ratio_on_vs_off: {
          evaluated: ratio(on.steady_evaluated_median, off.steady_evaluated_median),
          wall: ratio(on.steady_wall_ms_median, off.steady_wall_ms_median),
          cpu: ratio(on.steady_cpu_ms_median, off.steady_cpu_ms_median),
        },
        ...(server
          ? {
              ratio_on_vs_llama_server: {
                evaluated: ratio(on.steady_evaluated_median, server.steady_evaluated_median),
                wall: ratio(on.steady_wall_ms_median, server.steady_wall_ms_median),
                cpu: ratio(on.steady_cpu_ms_median, server.steady_cpu_ms_median),
              },
            }
          : {}),
      };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  figures.load_avg_end = loadavg()[0];
  process.stdout.write(`${writeBenchResult("prefix-real", figures)}\n${JSON.stringify(figures, null, 2)}\n`);
}

await main();
