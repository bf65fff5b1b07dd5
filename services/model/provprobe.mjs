import pino from "pino";
import { getLlama, LlamaCompletion, LlamaLogLevel, resolveChatWrapper } from "node-llama-cpp";
import { LlamaProvider } from "./dist/llama-provider.js";
const logger = pino({ level: "warn" });
const PROMPT = "Once upon a time, in a small village by the sea, there lived a little girl named Lily who loved to";
const provider = new LlamaProvider({ home: "/tmp/x", logger, defaultThreads: 1 });
const spec = { id: "stories", provider: "llama", file: "/work/shared/models/stories260K.gguf", thinking: false, maxOutputTokens: 256, maxIterations: 25, contextBudget: 2048, nativeTools: false, gpuLayers: 0, maxSessions: 12, grammar: true };
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: spec.file });
const context = await model.createContext({ contextSize: 2048, threads: 1, sequences: 1 });
const state = resolveChatWrapper(model).generateContextState({ chatHistory: [{ type: "user", text: PROMPT }, { type: "model", response: [] }] });
const tokens = state.contextText.tokenize(model.tokenizer).slice(1);
const c = new LlamaCompletion({ contextSequence: context.getSequence() });
const t = { p: [], d: [] };
for (let i = 0; i < 12; i++) {
  let s = performance.now();
  const r = await provider.chat({ spec, request: { request_id: "r", session: "s", messages: [{ role: "user", content: PROMPT }], tools: [], stream: true, max_tokens: 256, temperature: 0 }, signal: new AbortController().signal, onDelta() {}, logger });
  t.p.push(performance.now() - s);
  s = performance.now();
  await c.generateCompletion(tokens, { maxTokens: 256, temperature: 0, customStopTriggers: state.stopGenerationTriggers, disableContextShift: true, contextShiftSize: 1 });
  t.d.push(performance.now() - s);
}
for (const k of ["p", "d"]) { const x = t[k].sort((a,b)=>a-b); console.log(k, "min", Math.round(x[0]), "median", Math.round(x[6])); }
await provider.close();
