/**
 * bench:model — the model service with the shipped stories260K model, in one run:
 *  1. tokens/s through the service (bus included) against node-llama-cpp called directly
 *     in-process for the same prompt and length (same threads, greedy, same sequence reuse);
 *  2. a 10-turn agent-like transcript (system prompt + growing history) with session reuse and
 *     with a fresh context each turn: prompt tokens evaluated per turn and wall time per turn;
 *  3. the tool-call grammar's cost: generation tokens/s with and without it;
 *  4. the thread default: direct tokens/s with 1 and 2 threads.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { getLlama, LlamaCompletion, LlamaLogLevel } from "node-llama-cpp";
import { startNatsServer } from "@aide/runtime";
import { ModelChatReplySchema, type ChatTool, type ModelChatResult } from "@aide/contracts";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";

const modelPath = process.env.AIDE_TEST_MODEL ?? join(repoRoot, "..", "shared", "models", "stories260K.gguf");
const GEN_TOKENS = 256;
const RUNS = 9;
const PROMPT = "Once upon a time, in a small village by the sea, there lived a little girl named Lily who loved to";

const median = (values: number[]) => percentile(values, 50);
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function startModelService(url: string, creds: string, env: Record<string, string>, pinger: NatsConnection): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(repoRoot, "services", "model", "dist", "main.js")], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_NATS_URL: url, AIDE_NATS_CREDS: creds, AIDE_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await pinger.request("$SRV.PING.aide-model", new Uint8Array(), { timeout: 300 });
      return child;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error("the model service did not start");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

let requestCounter = 0;
async function chat(client: NatsConnection, body: Record<string, unknown>): Promise<ModelChatResult & { wall_ms: number }> {
  const started = performance.now();
  const message = await client.request("agent.model.chat", new TextEncoder().encode(JSON.stringify({ request_id: `b${++requestCounter}`, model: "stories", stream: true, ...body })), { timeout: 120_000 });
  const wall = performance.now() - started;
  const reply = ModelChatReplySchema.parse(JSON.parse(new TextDecoder().decode(message.data)));
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return { ...reply.result, wall_ms: wall };
}

/** node-llama-cpp in-process, the same rendered prompt and length as the service (greedy). */
async function directRuns(threads: number, promptTokensFrom: ModelChatResult | undefined, runs: number): Promise<{ tps: number[]; tokens: number[] }> {
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 2048, threads, sequences: 1 });
  const { resolveChatWrapper } = await import("node-llama-cpp");
  const wrapper = resolveChatWrapper(model);
  const state = wrapper.generateContextState({ chatHistory: [{ type: "user", text: PROMPT }, { type: "model", response: [] }] });
  const tokens = state.contextText.tokenize(model.tokenizer);
  const input = model.tokens.shouldPrependBosToken && tokens[0] === model.tokens.bos ? tokens.slice(1) : tokens;
  if (promptTokensFrom && promptTokensFrom.usage.prompt_tokens !== input.length + (model.tokens.shouldPrependBosToken ? 1 : 0)) {
    process.stderr.write(`note: direct prompt ${input.length} tokens vs service ${promptTokensFrom.usage.prompt_tokens}\n`);
  }
  const sequence = context.getSequence();
  const completion = new LlamaCompletion({ contextSequence: sequence });
  const tps: number[] = [];
  const counts: number[] = [];
  for (let run = 0; run < runs; run++) {
    const before = sequence.tokenMeter.getState().usedOutputTokens;
    const started = performance.now();
    await completion.generateCompletion(input, { maxTokens: GEN_TOKENS, temperature: 0, customStopTriggers: state.stopGenerationTriggers, disableContextShift: true });
    const ms = performance.now() - started;
    const generated = sequence.tokenMeter.getState().usedOutputTokens - before;
    tps.push((generated / ms) * 1000);
    counts.push(generated);
  }
  await context.dispose();
  await model.dispose();
  await llama.dispose();
  return { tps, tokens: counts };
}

const catalog: ChatTool[] = ["read_file", "list_dir", "search", "write_file", "replace_in_file", "run_command", "git_status", "attempt_completion"].map((name) => ({
  name,
  description: name,
  parameters: { type: "object", properties: { path: { type: "string", maxLength: 40 }, content: { type: "string" }, limit: { type: "integer" } }, required: ["path", "content"] },
}));

async function transcriptRun(client: NatsConnection, reuse: boolean, replies: string[] | undefined): Promise<{ evaluated: number[]; prompt: number[]; ms: number[]; replies: string[] }> {
  const system = "You are aide, a coding agent working in a repository. Use one tool per message with the XML protocol: <tool_name><param>value</param></tool_name>. Tools: read_file(path), list_dir(path), search(query), write_file(path, content), replace_in_file(path, diff), run_command(command), attempt_completion(result). Think before acting. Never guess file contents; read them. ".repeat(2);
  const messages: Array<{ role: string; content: string }> = [{ role: "system", content: system }, { role: "user", content: "Fix the failing test in src/math.ts and run the tests." }];
  const out = { evaluated: [] as number[], prompt: [] as number[], ms: [] as number[], replies: [] as string[] };
  const tag = Math.random().toString(36).slice(2, 8);
  for (let turn = 0; turn < 10; turn++) {
    const session = reuse ? `reuse-${tag}` : `fresh-${tag}-${turn}`;
    const result = await chat(client, { session, messages, max_tokens: 48, temperature: 0, stream: true });
    out.evaluated.push(result.usage.evaluated_prompt_tokens ?? result.usage.prompt_tokens);
    out.prompt.push(result.usage.prompt_tokens);
    out.ms.push(round(result.wall_ms));
    const reply = replies?.[turn] ?? result.text;
    out.replies.push(reply);
    messages.push({ role: "assistant", content: reply }, { role: "user", content: `Tool result for turn ${turn + 1}:\nsrc/math.ts line ${turn * 7 + 3}: expected ${turn} to equal ${turn + 1}. The test file imports add from ../src/math.` });
  }
  return out;
}

async function grammarRuns(client: NatsConnection, grammar: boolean): Promise<number[]> {
  const tps: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const result = await chat(client, {
      session: `grammar-${grammar}`,
      messages: [{ role: "user", content: PROMPT }],
      ...(grammar ? { tools: catalog, tool_choice: "required" } : {}),
      max_tokens: GEN_TOKENS,
      temperature: 0.8,
      seed: run,
      stream: false,
    });
    const genMs = result.timings.total_ms - (result.timings.first_token_ms ?? 0);
    if (result.usage.completion_tokens > 8 && genMs > 0) tps.push(((result.usage.completion_tokens - 1) / genMs) * 1000);
  }
  return tps;
}

async function main(): Promise<void> {
  if (!existsSync(modelPath)) {
    process.stderr.write(`bench:model skipped: no model at ${modelPath}\n`);
    writeBenchResult("model", { skipped: `no model at ${modelPath}` });
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "aide-bench-model-"));
  writeFileSync(join(dir, "models.json"), JSON.stringify({ default: "stories", models: [{ id: "stories", provider: "llama", file: modelPath, contextBudget: 2048, maxOutputTokens: GEN_TOKENS, maxSessions: 12 }] }));
  const server = await startNatsServer({ runDir: join(dir, "bus"), extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
  const client = await connect({ servers: server.url, user: "tester", pass: server.credentials.tester.password, inboxPrefix: server.credentials.tester.inbox_prefix });
  let child: ChildProcess | undefined;
  try {
    child = await startModelService(server.url, server.credentialFiles.model, { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: dir }, client);

    // 1. Service vs direct: warm both, then alternate runs so machine noise hits both alike.
    const warm = await chat(client, { session: "tps", messages: [{ role: "user", content: PROMPT }], max_tokens: GEN_TOKENS, temperature: 0 });
    const serviceTps: number[] = [];
    const serviceTokens: number[] = [];
    const direct1: number[] = [];
    for (let round_ = 0; round_ < 3; round_++) {
      for (let run = 0; run < 3; run++) {
        const result = await chat(client, { session: "tps", messages: [{ role: "user", content: PROMPT }], max_tokens: GEN_TOKENS, temperature: 0 });
        serviceTps.push((result.usage.completion_tokens / result.wall_ms) * 1000);
        serviceTokens.push(result.usage.completion_tokens);
      }
      direct1.push(...(await directRuns(1, warm, 3)).tps);
    }
    const direct2 = (await directRuns(2, undefined, 3)).tps;

    // 2. Ten turns with the session kept warm, then the same transcript with a fresh context each turn.
    const reuse = await transcriptRun(client, true, undefined);
    const fresh = await transcriptRun(client, false, reuse.replies);

    // 3. Grammar against plain decoding (generation only: prompt evaluation excluded).
    const plain = await grammarRuns(client, false);
    const grammar = await grammarRuns(client, true);

    const serviceMedian = median(serviceTps);
    const directMedian = median(direct1);
    const figures = {
      model: "stories260K.gguf",
      threads_default: availableParallelism() <= 2 ? 1 : Math.min(8, Math.floor(availableParallelism() / 2)),
      gen_tokens: GEN_TOKENS,
      service_tokens_per_run: median(serviceTokens),
      service_tps: round(serviceMedian),
      direct_tps: round(directMedian),
      ratio: round(serviceMedian / directMedian, 3),
      threads: { "1": round(median(direct1)), "2": round(median(direct2)) },
      evaluated_tokens_reuse: reuse.evaluated,
      evaluated_tokens_fresh: fresh.evaluated,
      prompt_tokens_per_turn: reuse.prompt,
      turn_ms_reuse: reuse.ms,
      turn_ms_fresh: fresh.ms,
      turn10_ms_reuse: reuse.ms[9],
      turn10_ms_fresh: fresh.ms[9],
      turn10_evaluated_ratio: round(reuse.evaluated[9] / fresh.evaluated[9], 3),
      grammar_tps: round(median(grammar)),
      plain_tps: round(median(plain)),
      grammar_cost: round(1 - median(grammar) / median(plain), 3),
      targets: { ratio: ">= 0.9", turn10_evaluated_ratio: "<= 0.2", grammar_cost: "< 0.1" },
    };
    const path = writeBenchResult("model", figures);
    process.stdout.write(JSON.stringify(figures, null, 2) + `\nwritten to ${path}\n`);
  } finally {
    child?.kill("SIGTERM");
    await client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
