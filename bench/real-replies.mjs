// Scratch-free bench: N first-turn replies per model and grammar variant with the real compact
// prompt, the real act-mode catalog and the model service's own grammar/prompt code (dist).
// Usage: node bench/real-replies.mjs MODEL_PATH N VARIANT...   (VARIANT: off | call | call+schema | reply | reply+schema)
// SERVER=http://127.0.0.1:PORT sends the same prompt and grammar to a running llama-server instead
// (its /v1/chat/completions, grammar in the `grammar` field); MODEL_PATH is then only a label.
import { getLlama, LlamaLogLevel, LlamaCompletion } from "node-llama-cpp";
import { allTools } from "../services/tools/dist/tools/catalog.js";
import { describeTool } from "../services/tools/dist/framework/list-tools.js";
import { orchestratorTools } from "../services/orchestrator/dist/orchestrator-tools/orchestrator-tool-descriptors.js";
import { compactSystemPrompt } from "../services/orchestrator/dist/context/compact-prompt.js";
import { buildToolCallGrammar } from "../services/model/dist/tool-call-grammar.js";
import { parseTextToolCalls } from "../services/model/dist/tool-call-parse.js";
import { renderPrompt } from "../services/model/dist/llama-prompt.js";

const [file, n = "5", ...variants] = process.argv.slice(2);
const offered = ["read_file", "list_dir", "search_files", "write_file", "replace_in_file", "run_command"];
const tools = [...allTools().map(describeTool).filter((t) => offered.includes(t.name)), orchestratorTools.find((t) => t.name === "attempt_completion")];
const chatTools = tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
const system = compactSystemPrompt({ mode: "act", tools, workspace: "/w/sample-project", now: new Date(), tier: "compact" }) + "\nWorkspace: /w/sample-project";
const task = "Make the failing test pass. Run the tests with `node --test` to check.";
const server = process.env.SERVER;
const maxTokensFor = () => Number(process.env.MAX_TOKENS ?? 256);
async function viaServer(gbnf, seed) {
  const started = performance.now();
  const response = await fetch(`${server}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "system", content: system }, { role: "user", content: task }], max_tokens: maxTokensFor(), temperature: 0.2, seed, cache_prompt: false, ...(gbnf ? { grammar: gbnf } : {}) }) });
  const json = await response.json();
  return { text: json.choices[0].message.content ?? "", finish: json.choices[0].finish_reason, tokens: json.usage.completion_tokens, ms: performance.now() - started, genPerSecond: json.timings?.predicted_per_second, promptPerSecond: json.timings?.prompt_per_second };
}
if (server) {
  for (const variant of variants.length ? variants : ["off", "call", "reply+schema"]) {
    const [scope, schemaFlag] = variant.split("+");
    const gbnf = scope === "off" ? undefined : buildToolCallGrammar(chatTools, { choice: "required", maxCalls: 1, scope, schema: schemaFlag === "schema", maxProseChars: Math.floor(maxTokensFor() / 2) });
    const tally = { replies: 0, wellFormed: 0, cut: 0, prose: 0, malformed: 0, tokens: 0, ms: 0, genPerSecond: [], promptPerSecond: [] };
    for (let i = 0; i < Number(n); i++) {
      const out = await viaServer(gbnf, i);
      const parsed = parseTextToolCalls(out.text, chatTools);
      tally.replies++;
      tally.tokens += out.tokens;
      tally.ms += out.ms;
      tally.genPerSecond.push(Math.round(out.genPerSecond * 10) / 10);
      tally.promptPerSecond.push(Math.round(out.promptPerSecond));
      if (out.finish === "length") tally.cut++;
      else if (parsed.calls.length > 0 && parsed.errors.length === 0) tally.wellFormed++;
      else if (parsed.calls.length === 0 && parsed.errors.length === 0) tally.prose++;
      else tally.malformed++;
      if (process.env.SHOW) console.log(`--- ${variant} #${i} ${out.finish} ${JSON.stringify(parsed.errors)}\n${out.text}`);
    }
    console.log(variant, JSON.stringify(tally));
  }
  process.exit(0);
}
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: file });
const context = await model.createContext({ contextSize: 4096, threads: 1, sequences: 1 });
const { resolveChatWrapper } = await import("node-llama-cpp");
const wrapper = resolveChatWrapper(model);
const maxTokens = Number(process.env.MAX_TOKENS ?? 256);
const results = {};
for (const variant of variants.length ? variants : ["off", "call", "reply+schema"]) {
  const [scope, schemaFlag] = variant.split("+");
  const gbnf = scope === "off" ? undefined : buildToolCallGrammar(chatTools, { choice: "required", maxCalls: 1, scope, schema: schemaFlag === "schema", maxProseChars: Math.floor(maxTokens / 2) });
  const grammar = gbnf ? await llama.createGrammar({ grammar: gbnf }) : undefined;
  const tally = { replies: 0, wellFormed: 0, cut: 0, prose: 0, malformed: 0, tokens: 0, ms: 0 };
  for (let i = 0; i < Number(n); i++) {
    const sequence = context.getSequence();
    const rendered = renderPrompt(model, wrapper, [{ role: "system", content: system }, { role: "user", content: task }]);
    const completion = new LlamaCompletion({ contextSequence: sequence });
    const started = performance.now();
    const out = await completion.generateCompletionWithMeta(rendered.tokens, { maxTokens, temperature: 0.2, seed: i, customStopTriggers: rendered.stopTriggers, ...(grammar ? { grammar } : {}) });
    const ms = performance.now() - started;
    const parsed = parseTextToolCalls(out.response, chatTools);
    tally.replies++;
    tally.tokens += model.tokenize(out.response).length;
    tally.ms += ms;
    const cut = out.metadata.stopReason === "maxTokens";
    if (cut) tally.cut++;
    else if (parsed.calls.length > 0 && parsed.errors.length === 0) tally.wellFormed++;
    else if (parsed.calls.length === 0 && parsed.errors.length === 0) tally.prose++;
    else tally.malformed++;
    if (process.env.SHOW) console.log(`--- ${variant} #${i} ${out.metadata.stopReason} ${JSON.stringify(parsed.errors)}\n${out.response}`);
    completion.dispose();
    sequence.dispose();
  }
  results[variant] = { ...tally, tokensPerSecond: Math.round((tally.tokens / tally.ms) * 10000) / 10 };
  console.log(variant, JSON.stringify(results[variant]));
}
