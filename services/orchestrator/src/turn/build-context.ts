import type { ChatMessage, ModelProbeProgress, ToolDescriptor } from "@aide/contracts";
import { buildContext, compactionPrompt, memoryLimitsFor, modeNotice, modelFit, planCompaction, systemPrompt, withExperimentFit, type ModelFit } from "../context/index.js";
import type { Memory } from "../memory/memory-store.js";
import { applyEditFormat, selectTools } from "../routing/index.js";
import type { RunContext } from "../run/run-context.js";
import { strategyPrefix, strategySystemPrompt } from "../strategies/run-strategies.js";
import { strategyState } from "../strategies/strategy-state.js";
import { runAddedCall } from "./execute-tool-calls.js";
import { modelText } from "../context/model-text.js";
import { loadInstructions } from "../instructions/load-instructions.js";

export interface BuiltContext {
  messages: ChatMessage[];
  /** The catalog subset shown to the model this turn (routing only, never authorization). */
  tools: ToolDescriptor[];
  /** Characters of the context sent. */
  chars: number;
}

const runCatalogs = new WeakMap<RunContext, ToolDescriptor[]>();

/** The tools this run may see at all: no delegation for children, read-only for read-only children. */
export function runCatalog(context: RunContext): ToolDescriptor[] {
  const cached = runCatalogs.get(context);
  if (cached) return cached;
  const catalog = context.catalog.filter((tool) => {
    if (tool.name === "spawn_agent" && !context.canDelegate) return false;
    if (context.readOnlyAgent && !tool.read_only) return false;
    if (context.depth > 0 && tool.name === "switch_to_act_mode") return false;
    return true;
  });
  runCatalogs.set(context, catalog);
  return catalog;
}

/** Person's follow-up messages and a pending mode notice enter the transcript as user messages. */
function drainInbox(context: RunContext): void {
  if (context.depth > 0) return;
  const record = context.session.record;
  const notice = record.pending_mode_notice ? modeNotice(record.pending_mode_notice) : undefined;
  const texts = record.inbox.splice(0);
  if (notice === undefined && texts.length === 0) return;
  record.pending_mode_notice = undefined;
  const last = context.state.transcript.at(-1);
  if (notice !== undefined && texts.length === 0 && last?.role === "user") {
    // The notice goes into the next user-side message (the pending tool results), not a new turn.
    last.content = `${last.content}\n\n${notice}`;
    return;
  }
  for (const [index, text] of texts.entries()) {
    const content = index === 0 && notice !== undefined ? `${notice}\n\n${modelText(text)}` : modelText(text);
    context.state.transcript.push({ role: "user", content });
  }
  if (texts.length === 0 && notice !== undefined) context.state.transcript.push({ role: "user", content: notice });
}

async function ensureSystem(context: RunContext, tools: ToolDescriptor[], fit: ModelFit): Promise<string> {
  const record = context.session.record;
  const holder = context.depth === 0 ? record : context.state;
  const existing = (holder as { system?: string }).system;
  if (existing !== undefined) return existing;
  // The strategies' options (few_shot's examples, which may list the workspace first), and the tool-call format.
  const toolFormat = record.experiment?.tool_format;
  const system = systemPrompt({
    mode: record.mode,
    tools,
    workspace: record.workspace,
    now: context.seams.now(),
    tier: fit.tier,
    ...(toolFormat !== undefined ? { toolFormat } : {}),
    ...(await strategySystemPrompt(context, fit)),
  });
  (holder as { system?: string }).system = system;
  return system;
}

/**
 * Step 1 of a turn. The system contract is built once per run and mode (a stable prefix the local
 * model's KV cache reuses); messages are only appended. When the budget is reached the oldest
 * part is summarized once by the model instead of dropping a message every turn.
 */
export async function buildContextStep(context: RunContext): Promise<BuiltContext> {
  const record = context.session.record;
  drainInbox(context);
  const fit = (context.modelFit ??= await resolveModelFit(context));
  const tools = applyEditFormat(selectTools(context.task, runCatalog(context), record.mode, fit.tier), runCatalog(context), record.mode, record.experiment?.edit_format ?? record.model_edit_format);
  const system = await ensureSystem(context, tools, fit);
  // Project instructions first: the person decides on them before anything else of the run happens.
  if (context.instructions === undefined) {
    context.instructions = await loadInstructions(context, fit);
    // What the model is shown before its first turn is what it read too: an answer may cite it.
    context.policies.ledger.recordShown(context.instructions ?? "");
  }
  if (context.outcome) return { messages: [], tools, chars: 0 };
  // Memories and the time are fixed per run: the prompt prefix must not change between turns.
  const memoryLimits = memoryLimitsFor(fit.tier);
  if (context.memories === undefined) {
    context.memories = await loadMemories(context, memoryLimits.count);
    // What the model is shown before its first turn is what it read too: an answer may cite it.
    for (const memory of context.memories) context.policies.ledger.recordShown(memory.text);
  }
  // The strategies' blocks too (the code map, prefix_failing_output's test run): settled once, before the first turn.
  const prefix = strategyState<{ block?: { text: string; facts: Record<string, number> } }>(context, "stable-prefix", () => ({}));
  if (prefix.block === undefined) {
    prefix.block = await strategyPrefix(context, fit, context.contextChars ?? fit.budgetChars, runAddedCall);
    context.policies.ledger.recordShown(prefix.block.text);
  }
  const input = {
    system,
    memories: context.memories.map((memory) => ({ id: memory.id, text: memory.text, author: memory.author, created_at: memory.created_at, provenance: memory.provenance })),
    memoryLimits,
    budgetChars: (context.contextChars ??= fit.budgetChars),
    environment: { workspace: record.workspace, mode: record.mode, now: new Date(context.startedAtMs).toISOString() },
    strategyBlocks: prefix.block.text,
    instructions: context.instructions,
  };
  let built = buildContext({ ...input, messages: context.state.transcript });
  let compacted = false;
  // The stable-prefix-drop-v1 policy never summarizes: buildContext drops the oldest messages instead.
  if (built.needsCompaction && record.experiment?.context_policy !== "stable-prefix-drop-v1") {
    compacted = await compactTranscript(context);
    if (compacted) built = buildContext({ ...input, messages: context.state.transcript });
  }
  await context.session.emit(
    "context.built",
    {
      messages: built.messages.length,
      dropped: built.dropped,
      chars: built.chars,
      compacted,
      tools: tools.map((tool) => tool.name),
      tier: fit.tier,
      ...(fit.windowTokens !== undefined ? { window_tokens: fit.windowTokens } : {}),
      ...prefix.block.facts,
    },
    context.depth,
    context.run,
  );
  return { messages: built.messages, tools, chars: built.chars };
}

/**
 * The run's memories, loaded once; the person sees them (who wrote each, from which session and
 * after reading what) in `memory.loaded` before the model works with them.
 */
async function loadMemories(context: RunContext, limit: number): Promise<Memory[]> {
  if (context.depth > 0) return [];
  const memories = await context.seams.memory.recall(context.session.record.user, undefined, limit).catch((error: unknown) => {
    context.logger.warn({ err: error }, "recalling memories failed; the run goes on without them");
    return [];
  });
  if (memories.length > 0) {
    const shown = memories.map((memory) => ({ id: memory.id, text: memory.text, author: memory.author, created_at: memory.created_at, provenance: memory.provenance }));
    await context.session.emit("memory.loaded", { memories: shown }, context.depth, context.run);
  }
  return memories;
}

/**
 * The model's fit for this run, once: its probe profile (the model service probes a model once and
 * caches it) and the window its list gives. Both seams must not throw; without either the
 * configured character budget and the full tier apply.
 */
async function resolveModelFit(context: RunContext): Promise<ModelFit> {
  const model = context.session.record.model || undefined;
  const port = context.seams.model;
  // A first use probes the model (minutes on a slow machine): the person sees how far it is.
  const onProgress = (progress: ModelProbeProgress) => void context.session.emit("model.probing", progress, context.depth, context.run).catch(() => undefined);
  const [profile, info] = await Promise.all([port.profile?.(model, onProgress), port.modelInfo?.(model)]);
  const tokens = info?.contextTokens ?? (await port.contextTokens?.(model));
  return withExperimentFit(modelFit(context.seams.config.contextChars, profile, tokens, info?.provider), context.session.record.experiment);
}

/** Summarizes the oldest part of the transcript once (the model writes the summary). */
async function compactTranscript(context: RunContext): Promise<boolean> {
  const plan = planCompaction(context.state.transcript, context.contextChars ?? context.seams.config.contextChars, 6);
  if (plan.summarize.length === 0) return false;
  try {
    const reply = await context.seams.model.chat(
      {
        request_id: context.seams.generateId(),
        session: context.session.record.id,
        // On a sequence of its own: the session's warm KV cache (its stable prefix) survives the summary.
        one_off: true,
        model: context.session.record.model || undefined,
        messages: compactionPrompt(plan.summarize),
        tools: [],
        stream: false,
      },
      () => undefined,
      context.session.signal,
    );
    const summary: ChatMessage = { role: "user", content: `[Summary of the earlier conversation]\n${reply.text}` };
    context.state.transcript.splice(0, context.state.transcript.length, summary, ...plan.keep);
    context.state.counters.compactions += 1;
    await context.persist();
    return true;
  } catch (error) {
    context.logger.warn({ err: error }, "compaction failed; the context policy drops old messages instead");
    return false;
  }
}
