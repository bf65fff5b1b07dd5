/**
 * Where one eval attempt's time went, from its recorded events (`<out>/events/<attempt>.jsonl`,
 * each with the publishing service's `ts`; every service runs on this host, one clock):
 * - setup: `run.created` → the first `context.built` (the session's first context: on the run's
 *   first attempt this is where the stack's cold start shows);
 * - per turn: `model.requested` → the first `model.delta` (prefill: the prompt tokens the model
 *   service evaluated, queue and bus included) → `model.responded` (generation; a reply sent
 *   whole, without deltas, is counted apart as unstreamed), with the usage the
 *   model service reported (prompt, cached and evaluated prompt tokens, completion tokens, why it
 *   stopped);
 * - tools: `tool.started` → `tool.completed`;
 * - context: the step before each `model.requested` after the first (building the next prompt;
 *   a compaction that asks the model for a summary shows here);
 * - other: what is left of the wall time (approvals, checkpoints, the run's end).
 */
export interface TurnTimes {
  iteration: number;
  /** Time to the first streamed token (0 when the reply was not streamed: then all is in `unstreamed_ms`). */
  prefill_ms: number;
  generation_ms: number;
  /** A reply that came without `model.delta` events (a grammar-constrained reply is sent whole): prefill and generation together. */
  unstreamed_ms: number;
  prompt_tokens: number;
  cached_prompt_tokens: number;
  evaluated_prompt_tokens: number;
  completion_tokens: number;
  finish_reason: string;
  /** Whether this turn's context was compacted before it was sent. */
  compacted: boolean;
  /** The context step before this turn (the previous step's end → `model.requested`). */
  context_ms: number;
}

export interface AttemptTimeline {
  wall_ms: number;
  setup_ms: number;
  turns: TurnTimes[];
  prefill_ms: number;
  generation_ms: number;
  unstreamed_ms: number;
  tools_ms: number;
  context_ms: number;
  other_ms: number;
  /** Turns that stopped at the output limit (`finish_reason: length`) and the tokens they generated. */
  length_capped_turns: number;
  length_capped_tokens: number;
  /** Their model time (prefill, generation, unstreamed). */
  length_capped_ms: number;
  completion_tokens: number;
  evaluated_prompt_tokens: number;
  prompt_tokens: number;
}

interface Event {
  type: string;
  ts?: string;
  depth?: number;
  payload?: Record<string, unknown>;
}

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);

export function attemptTimeline(events: readonly Event[]): AttemptTimeline {
  // Only the attempt's own run: a child agent's steps would count twice.
  const own = events.filter((event) => !(typeof event.depth === "number" && event.depth > 0) && Number.isFinite(Date.parse(String(event.ts ?? ""))));
  const at = (event: Event) => Date.parse(String(event.ts));
  const first = own.length > 0 ? at(own[0]) : 0;
  const last = own.length > 0 ? at(own[own.length - 1]) : 0;
  const firstContext = own.find((event) => event.type === "context.built");
  const turns: TurnTimes[] = [];
  let tools = 0;
  let previousEnd = firstContext !== undefined ? at(firstContext) : first;
  let requestedAt: number | undefined;
  let firstDeltaAt: number | undefined;
  let compacted = false;
  let contextMs = 0;
  const toolStarts = new Map<string, number>();
  for (const event of own) {
    const payload = event.payload ?? {};
    if (event.type === "context.built") compacted = payload.compacted === true;
    else if (event.type === "model.requested") {
      requestedAt = at(event);
      firstDeltaAt = undefined;
      contextMs = turns.length === 0 ? 0 : Math.max(0, requestedAt - previousEnd);
    } else if (event.type === "model.delta") firstDeltaAt ??= at(event);
    else if (event.type === "model.responded" && requestedAt !== undefined) {
      const end = at(event);
      turns.push({
        iteration: turns.length + 1,
        prefill_ms: firstDeltaAt !== undefined ? firstDeltaAt - requestedAt : 0,
        generation_ms: firstDeltaAt !== undefined ? end - firstDeltaAt : 0,
        unstreamed_ms: firstDeltaAt === undefined ? end - requestedAt : 0,
        prompt_tokens: num(payload.prompt_tokens),
        cached_prompt_tokens: num(payload.cached_prompt_tokens),
        evaluated_prompt_tokens: num(payload.evaluated_prompt_tokens),
        completion_tokens: num(payload.completion_tokens),
        finish_reason: String(payload.finish_reason ?? ""),
        compacted,
        context_ms: contextMs,
      });
      requestedAt = undefined;
      previousEnd = end;
    } else if (event.type === "tool.started") toolStarts.set(String(payload.call_id ?? ""), at(event));
    else if (event.type === "tool.completed") {
      const began = toolStarts.get(String(payload.call_id ?? ""));
      if (began !== undefined) tools += at(event) - began;
      previousEnd = at(event);
    }
  }
  const sum = (key: keyof TurnTimes) => turns.reduce((total, turn) => total + Number(turn[key]), 0);
  const wall = last - first;
  const setup = firstContext !== undefined ? at(firstContext) - first : 0;
  const capped = turns.filter((turn) => turn.finish_reason === "length");
  const prefill = sum("prefill_ms");
  const generation = sum("generation_ms");
  const unstreamed = sum("unstreamed_ms");
  const context = sum("context_ms");
  return {
    wall_ms: wall,
    setup_ms: setup,
    turns,
    prefill_ms: prefill,
    generation_ms: generation,
    unstreamed_ms: unstreamed,
    tools_ms: tools,
    context_ms: context,
    other_ms: Math.max(0, wall - setup - prefill - generation - unstreamed - tools - context),
    length_capped_turns: capped.length,
    length_capped_tokens: capped.reduce((total, turn) => total + turn.completion_tokens, 0),
    length_capped_ms: capped.reduce((total, turn) => total + turn.prefill_ms + turn.generation_ms + turn.unstreamed_ms, 0),
    completion_tokens: sum("completion_tokens"),
    evaluated_prompt_tokens: sum("evaluated_prompt_tokens"),
    prompt_tokens: sum("prompt_tokens"),
  };
}
