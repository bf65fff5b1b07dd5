import { z } from "zod";
import type { CostFigures, SessionCosts, TurnCost } from "@aide/contracts";

/** The parts of the events the figures come from (the rest of each event is not read). */
const RespondedSchema = z.object({
  seq: z.number().int().positive(),
  run: z.string(),
  depth: z.number().int().nonnegative().default(0),
  type: z.literal("model.responded"),
  payload: z.object({
    request_id: z.string(),
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    duration_ms: z.number().nonnegative(),
    cached_prompt_tokens: z.number().int().nonnegative().optional(),
    model: z.string().optional(),
  }),
});
const RequestedSchema = z.object({
  type: z.literal("model.requested"),
  payload: z.object({ request_id: z.string(), iteration: z.number().int() }),
});
const ToolCompletedSchema = z.object({
  run: z.string(),
  depth: z.number().int().nonnegative().default(0),
  type: z.literal("tool.completed"),
  payload: z.object({ duration_ms: z.number().nonnegative() }),
});

const zero = (): CostFigures => ({ turns: 0, prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, model_ms: 0, tool_calls: 0, tool_ms: 0 });

function addTurn(figures: CostFigures, turn: TurnCost): void {
  figures.turns += 1;
  figures.prompt_tokens += turn.prompt_tokens;
  figures.completion_tokens += turn.completion_tokens;
  figures.cached_prompt_tokens += turn.cached_prompt_tokens ?? 0;
  figures.model_ms += turn.model_ms;
}

function addTool(figures: CostFigures, ms: number): void {
  figures.tool_calls += 1;
  figures.tool_ms += ms;
}

/**
 * Sums a session's events, in seq order: each `model.responded` is a turn, and each
 * `tool.completed` counts for the latest turn of its run and depth (the calls that turn asked
 * for), for its run, and for the session. Nothing is estimated: the figures are the events'.
 */
export function sessionCosts(session: string, events: unknown[]): SessionCosts {
  const turns: TurnCost[] = [];
  const runs = new Map<string, CostFigures>();
  const totals = zero();
  const iterations = new Map<string, number>();
  const latestTurn = new Map<string, TurnCost>();
  let lastSeq = 0;
  const runOf = (run: string) => runs.get(run) ?? runs.set(run, zero()).get(run)!;
  for (const raw of events) {
    const seq = (raw as { seq?: unknown }).seq;
    if (typeof seq === "number" && seq > lastSeq) lastSeq = seq;
    const type = (raw as { type?: unknown }).type;
    if (type === "model.requested") {
      const requested = RequestedSchema.safeParse(raw);
      if (requested.success) iterations.set(requested.data.payload.request_id, requested.data.payload.iteration);
    } else if (type === "model.responded") {
      const parsed = RespondedSchema.safeParse(raw);
      if (!parsed.success) continue;
      const { payload, run, depth } = parsed.data;
      const iteration = iterations.get(payload.request_id);
      const turn: TurnCost = {
        seq: parsed.data.seq,
        run,
        depth,
        request_id: payload.request_id,
        ...(iteration === undefined ? {} : { iteration }),
        ...(payload.model === undefined ? {} : { model: payload.model }),
        prompt_tokens: payload.prompt_tokens,
        completion_tokens: payload.completion_tokens,
        ...(payload.cached_prompt_tokens === undefined ? {} : { cached_prompt_tokens: payload.cached_prompt_tokens }),
        model_ms: payload.duration_ms,
        tool_calls: 0,
        tool_ms: 0,
      };
      turns.push(turn);
      latestTurn.set(`${run}/${depth}`, turn);
      addTurn(runOf(run), turn);
      addTurn(totals, turn);
    } else if (type === "tool.completed") {
      const parsed = ToolCompletedSchema.safeParse(raw);
      if (!parsed.success) continue;
      const { run, depth, payload } = parsed.data;
      const turn = latestTurn.get(`${run}/${depth}`);
      if (turn) {
        turn.tool_calls += 1;
        turn.tool_ms += payload.duration_ms;
      }
      addTool(runOf(run), payload.duration_ms);
      addTool(totals, payload.duration_ms);
    }
  }
  return { session, last_seq: lastSeq, turns, runs: [...runs].map(([run, figures]) => ({ run, ...figures })), totals };
}
