import type { AgentEvent } from "./api.js";

export interface TurnCost {
  run: string;
  turn: number;
  request: string;
  model: string;
  prompt: number;
  completion: number;
  /** Absent when the provider did not say (not the same as none reused). */
  cached?: number;
  modelMs: number;
  toolMs: number;
  tools: number;
}

/**
 * Per-turn costs from the events themselves, so the figures are the events': a turn is one model
 * request (`model.requested` … `model.responded`: prompt, completion and cached-prompt tokens,
 * model time) plus the tool calls that follow it until the next request (tool time).
 */
export function createRunCosts() {
  const turns: TurnCost[] = [];
  const byRequest = new Map<string, TurnCost>();
  /** The latest turn of each run and depth (a sub-agent's tools count for its own turns). */
  const latest = new Map<string, TurnCost>();
  const laneOf = (event: AgentEvent) => `${event.run ?? ""}:${event.depth ?? 0}`;
  const turnFor = (event: AgentEvent): TurnCost => {
    const id = String(event.payload.request_id);
    let turn = byRequest.get(id);
    if (!turn) {
      turn = {
        run: String(event.run ?? ""),
        turn: turns.filter((t) => t.run === String(event.run ?? "")).length + 1,
        request: id,
        model: "",
        prompt: 0,
        completion: 0,
        modelMs: 0,
        toolMs: 0,
        tools: 0,
      };
      byRequest.set(id, turn);
      turns.push(turn);
    }
    return turn;
  };
  return {
    turns: () => turns,
    /** True when the event changed a figure. */
    add(event: AgentEvent): boolean {
      const p = event.payload;
      if (event.type === "model.requested") {
        const turn = turnFor(event);
        turn.model = String(p.model ?? "");
        latest.set(laneOf(event), turn);
        return true;
      }
      if (event.type === "model.responded") {
        const last = turnFor(event);
        latest.set(laneOf(event), last);
        if (p.model) last.model = String(p.model);
        last.prompt = Number(p.prompt_tokens ?? 0);
        last.completion = Number(p.completion_tokens ?? 0);
        last.cached = typeof p.cached_prompt_tokens === "number" ? p.cached_prompt_tokens : undefined;
        last.modelMs = Number(p.duration_ms ?? 0);
        return true;
      }
      const last = latest.get(laneOf(event));
      if (event.type === "tool.completed" && last) {
        last.toolMs += Number(p.duration_ms ?? 0);
        last.tools += 1;
        return true;
      }
      return false;
    },
    clear() {
      turns.length = 0;
      byRequest.clear();
      latest.clear();
    },
  };
}

export function totals(turns: TurnCost[]): Omit<TurnCost, "run" | "turn" | "request" | "model"> {
  const reported = turns.filter((t) => t.cached !== undefined);
  return turns.reduce(
    (sum, t) => ({ ...sum, prompt: sum.prompt + t.prompt, completion: sum.completion + t.completion, modelMs: sum.modelMs + t.modelMs, toolMs: sum.toolMs + t.toolMs, tools: sum.tools + t.tools }),
    { prompt: 0, completion: 0, cached: reported.length ? reported.reduce((n, t) => n + (t.cached ?? 0), 0) : undefined, modelMs: 0, toolMs: 0, tools: 0 },
  );
}

/** A cached-prompt figure: "—" when the provider never said. */
export function cachedText(cached: number | undefined): string {
  return cached === undefined ? "—" : String(cached);
}
