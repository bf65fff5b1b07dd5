import { AideError, promptTierFor, type ModelChatRequest, type ModelChatResult, type ModelProfile, type ProbeStage } from "@aide/contracts";
import type { ModelSpec } from "../model-spec.js";
import type { ProviderFacts } from "../provider.js";
import { runToolTrials } from "./probe-trials.js";

export interface ProbeDeps {
  /** Runs one chat against the spec as given (the probe varies nativeTools on a copy). */
  chat(spec: ModelSpec, request: ModelChatRequest): Promise<ModelChatResult>;
  /** The provider's facts (windows, template); undefined when it has none. */
  facts(spec: ModelSpec): Promise<ProviderFacts | undefined>;
  generateId(): string;
  now(): Date;
  /** Told when a stage starts and after each of the probe's chats (`step` of `steps` done). Must not throw. */
  progress?(stage: ProbeStage, step: number, steps: number): void;
}

export interface ProbeOptions {
  key: string;
  /** Tool-call trials per arm (with and without the grammar; native and XML). */
  trials: number;
}

const STORY = "Once upon a time a small robot lived in a workshop full of tools. Every morning it counted the screws, sorted the wires and swept the floor. One day it found a map under the bench. ";

function perSecond(tokens: number, ms: number | undefined): number | undefined {
  return ms !== undefined && ms > 0 && tokens > 0 ? Math.round((tokens / ms) * 1000 * 10) / 10 : undefined;
}

/** Prefill from the first token's latency, decode from the rest (both measured on one chat). */
function speeds(reply: ModelChatResult): ModelProfile["speed"] {
  const evaluated = reply.usage.evaluated_prompt_tokens ?? reply.usage.prompt_tokens;
  const first = reply.timings.first_token_ms;
  const decodeMs = first !== undefined ? reply.timings.total_ms - first : undefined;
  const prefill = perSecond(evaluated, first);
  const decode = perSecond(Math.max(0, reply.usage.completion_tokens - 1), decodeMs);
  return { ...(prefill !== undefined ? { prefill_tokens_per_s: prefill } : {}), ...(decode !== undefined ? { decode_tokens_per_s: decode } : {}) };
}

/** The probe's conversation runs this many turns on one session; KV reuse is read at its last. */
const KV_TURNS = 10;

type Message = ModelChatRequest["messages"][number];

/**
 * Continues the session `turns` more turns (a short "Go on." each) and reads KV reuse at the last:
 * reused when the last turn evaluated less than half of what the history before it held.
 */
async function laterTurns(
  deps: ProbeDeps,
  spec: ModelSpec,
  session: string,
  history: Message[],
  turns: number,
): Promise<{ turn: number; prompt: number; evaluated: number; reused: boolean } | undefined> {
  let messages = history;
  let previousPrompt = 0;
  let reply: ModelChatResult | undefined;
  for (let turn = 0; turn < turns; turn++) {
    messages = [...messages, { role: "user", content: "Go on." }];
    if (reply) previousPrompt = reply.usage.prompt_tokens;
    reply = await deps.chat(spec, { request_id: deps.generateId(), session, messages, tools: [], max_tokens: 8, temperature: 0, stream: false });
    messages = [...messages, { role: "assistant", content: reply.text }];
  }
  const evaluated = reply?.usage.evaluated_prompt_tokens;
  if (!reply || evaluated === undefined) return undefined;
  return { turn: turns + 2, prompt: reply.usage.prompt_tokens, evaluated, reused: evaluated < Math.max(1, previousPrompt) / 2 };
}

/** End-of-turn markers of the common chat templates: none may appear in a reply's text. */
const TURN_MARKERS = ["<|im_end|>", "<|im_start|>", "<end_of_turn>", "<start_of_turn>", "<|eot_id|>", "<|end|>", "</s>"];

/**
 * A short question under a system prompt (as every aide session has one) with room to spare: the
 * reply should end on its own (stop), with no end-of-turn marker in the text. A "length" here is
 * the model rambling, not a stop string missed: the marker check tells those apart.
 */
async function stopCheck(deps: ProbeDeps, spec: ModelSpec): Promise<NonNullable<ModelProfile["stop"]>> {
  const reply = await deps.chat(spec, {
    request_id: deps.generateId(),
    session: `probe-stop-${deps.generateId()}`,
    messages: [
      { role: "system", content: "You are a helpful assistant. Answer in one short sentence." },
      { role: "user", content: "What is two plus two?" },
    ],
    tools: [],
    max_tokens: 96,
    temperature: 0,
    stream: false,
  });
  const leaked = TURN_MARKERS.find((marker) => reply.text.includes(marker));
  return { finish_reason: reply.finish_reason, completion_tokens: reply.usage.completion_tokens, ...(leaked ? { leaked_marker: leaked } : {}) };
}

/**
 * Sends a prompt estimated at `tokens` tokens and compares the server's prompt count with it:
 * Ollama cuts a prompt longer than its applied num_ctx to the last num_ctx tokens and carries on.
 */
async function longPrompt(deps: ProbeDeps, spec: ModelSpec, tokens: number): Promise<NonNullable<ModelProfile["context"]["long_prompt"]>> {
  const content = STORY.repeat(Math.ceil((tokens * 4) / STORY.length));
  const sent = Math.ceil(content.length / 4) + 4;
  try {
    const reply = await deps.chat(spec, { request_id: deps.generateId(), session: `probe-long-${deps.generateId()}`, messages: [{ role: "user", content }], tools: [], max_tokens: 1, stream: false });
    const evaluated = reply.usage.prompt_tokens;
    return { sent, evaluated, truncated: evaluated < sent * 0.9 };
  } catch (error) {
    if (error instanceof AideError && error.code === "PROMPT_TRUNCATED") {
      const actual = Number(error.details?.actual ?? 0);
      return { sent, evaluated: actual, truncated: true };
    }
    throw error;
  }
}

/**
 * The capability probe: the real window (the provider's facts, and for endpoints a prompt just over
 * the window the server claims, to catch a silent cut), prefill and decode speed, KV reuse across two
 * turns of one session, tool-call validity over N trials with and without the grammar (for
 * endpoints: native calls versus the XML protocol), and the chat template's system role. The result
 * picks the prompt tier, grammar on/off and native vs XML calls that the orchestrator uses.
 */
export async function probeModel(spec: ModelSpec, probeDeps: ProbeDeps, options: ProbeOptions): Promise<ModelProfile> {
  const tracked = trackProgress(spec, probeDeps, options.trials);
  const deps = tracked.deps;
  const facts = (await deps.facts(spec)) ?? { template: { name: "unknown", systemRole: true }, notes: [] };
  const notes = [...facts.notes];
  const session = `probe-${deps.generateId()}`;

  const messages = [
    { role: "system" as const, content: "You tell short stories." },
    { role: "user" as const, content: STORY },
  ];
  const first = await deps.chat(spec, { request_id: deps.generateId(), session, messages, tools: [], max_tokens: 24, temperature: 0, stream: false });
  const speed = speeds(first);
  const chars = messages.reduce((sum, message) => sum + message.content.length, 0);
  const charsPerToken = first.usage.prompt_tokens > 0 ? Math.round((chars / first.usage.prompt_tokens) * 100) / 100 : undefined;
  const grown = [...messages, { role: "assistant" as const, content: first.text }, { role: "user" as const, content: "Go on." }];
  const second = await deps.chat(spec, { request_id: deps.generateId(), session, messages: grown, tools: [], max_tokens: 8, temperature: 0, stream: false });
  const evaluated = second.usage.evaluated_prompt_tokens;
  const kvReuse =
    evaluated === undefined
      ? undefined
      : { reused: evaluated < second.usage.prompt_tokens - first.usage.prompt_tokens / 2, second_turn_prompt: second.usage.prompt_tokens, second_turn_evaluated: evaluated };
  tracked.stage("kv_reuse");
  if (kvReuse === undefined) {
    notes.push("KV reuse: the endpoint does not report evaluated prompt tokens");
    tracked.skip(KV_TURNS - 2);
  } else {
    const last = await laterTurns(deps, spec, session, [...grown, { role: "assistant" as const, content: second.text }], KV_TURNS - 2);
    if (last) Object.assign(kvReuse, { last_turn: last });
  }
  tracked.stage("stop");
  const stop = await stopCheck(deps, spec);

  let long: ModelProfile["context"]["long_prompt"];
  let applied: number | undefined;
  if (spec.provider === "openai" && spec.flavor === "ollama") {
    tracked.stage("long_prompt");
    // Just over the window aide asks for: a server that honours num_ctx cuts to it; one that ignores it cuts lower.
    long = await longPrompt(deps, spec, Math.min(Math.ceil(spec.contextBudget * 1.1), 20_000));
    if (long.truncated) {
      applied = long.evaluated;
      notes.push(`the server cut a ${long.sent}-token prompt to ${long.evaluated} tokens without an error (applied num_ctx ≈ ${long.evaluated})`);
    }
  }

  const id = (arm: string) => (index: number) => `${session}-${arm}-${index}`;
  let withGrammar: ModelProfile["tool_trials"]["with_grammar"];
  let withoutGrammar: ModelProfile["tool_trials"]["without_grammar"];
  let toolCalls: ModelProfile["tool_calls"] = "xml";
  tracked.stage("tool_trials");
  if (spec.provider === "llama") {
    withGrammar = await runToolTrials((request) => deps.chat(spec, request), { trials: options.trials, session: `${session}-tools`, grammar: true, native: false, requestId: id("g") });
    withoutGrammar = await runToolTrials((request) => deps.chat(spec, request), { trials: options.trials, session: `${session}-tools`, grammar: false, native: false, requestId: id("n") });
  } else {
    const xmlSpec = { ...spec, nativeTools: false } as ModelSpec;
    const nativeSpec = { ...spec, nativeTools: true } as ModelSpec;
    withoutGrammar = await runToolTrials((request) => deps.chat(xmlSpec, request), { trials: options.trials, session: `${session}-xml`, native: false, requestId: id("x") });
    const native = await runToolTrials((request) => deps.chat(nativeSpec, request), { trials: options.trials, session: `${session}-native`, native: true, requestId: id("t") });
    notes.push(`native tools: ${native.native ?? 0}/${native.trials} replies came back as parsed calls, ${native.valid}/${native.trials} valid`);
    const mostlyNative = (native.native ?? 0) * 5 >= native.trials * 4 && native.trials > 0;
    if (mostlyNative && native.valid >= withoutGrammar.valid) toolCalls = "native";
    withGrammar = undefined;
    withoutGrammar = { ...withoutGrammar, native: native.native ?? 0 };
  }

  const known = [facts.loadedWindow, facts.trainedWindow, applied, spec.provider === "llama" ? undefined : spec.contextBudget].filter((value): value is number => value !== undefined && value > 0);
  const window = known.length > 0 ? Math.min(...known) : spec.contextBudget;
  const grammar = spec.provider === "llama" && withGrammar !== undefined ? withGrammar.valid >= withoutGrammar.valid : false;
  tracked.stage("done");
  return {
    model: spec.id,
    provider: spec.provider,
    key: options.key,
    probed_at: deps.now().toISOString(),
    context: {
      ...(facts.trainedWindow !== undefined ? { trained: facts.trainedWindow } : {}),
      ...((applied ?? facts.loadedWindow) !== undefined ? { loaded: applied ?? facts.loadedWindow } : {}),
      ...(long ? { long_prompt: long } : {}),
      window,
    },
    prompt_tier: promptTierFor(window),
    grammar,
    tool_calls: toolCalls,
    speed,
    ...(charsPerToken !== undefined ? { chars_per_token: charsPerToken } : {}),
    ...(kvReuse ? { kv_reuse: kvReuse } : {}),
    stop,
    tool_trials: { ...(withGrammar ? { with_grammar: withGrammar } : {}), without_grammar: withoutGrammar },
    template: { name: facts.template.name, system_role: facts.template.systemRole },
    notes,
  };
}

/**
 * Counts the probe's chats for its progress: the first one waits on the model's load (`loading`),
 * then `speed`, and each later stage as the probe names it. The count is planned up front (the
 * chats each stage makes); a stage that is skipped moves the count on, so `step` never runs back.
 */
function trackProgress(spec: ModelSpec, deps: ProbeDeps, trials: number) {
  const steps = 2 + (KV_TURNS - 2) + 1 + (spec.provider === "openai" && spec.flavor === "ollama" ? 1 : 0) + 2 * trials;
  let step = 0;
  let current: ProbeStage = "loading";
  const tell = () => {
    try {
      deps.progress?.(current, Math.min(step, steps), steps);
    } catch {
      // Progress is for the person watching; it never fails the probe.
    }
  };
  tell();
  return {
    deps: {
      ...deps,
      async chat(target: ModelSpec, request: ModelChatRequest) {
        const reply = await deps.chat(target, request);
        step += 1;
        if (current === "loading") current = "speed";
        tell();
        return reply;
      },
    } satisfies ProbeDeps,
    stage(stage: ProbeStage) {
      if (stage === "done") step = steps;
      current = stage;
      tell();
    },
    skip(chats: number) {
      step += chats;
    },
  };
}
