/**
 * npm run bench:eval-time -- FOLDER... — where each eval attempt's time went, from the events an
 * `aide eval` run recorded (`FOLDER/events/*.jsonl`, or a folder of `.jsonl` files): setup,
 * prefill, generation, tools, context building and the rest, per attempt and in total, as Markdown
 * on stdout (bench/lib/attempt-timeline.ts says how each part is measured). With `--turns`, every
 * turn's row too. Reads only; writes nothing.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { attemptTimeline, type AttemptTimeline } from "./lib/attempt-timeline.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function eventFiles(folder: string): string[] {
  const events = existsSync(join(folder, "events")) ? join(folder, "events") : folder;
  return readdirSync(events)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => join(events, name));
}

function main() {
  const args = process.argv.slice(2);
  const showTurns = args.includes("--turns");
  const folders = args.filter((arg) => arg !== "--turns");
  if (folders.length === 0) throw new Error("usage: bench:eval-time -- FOLDER... [--turns] (an eval out folder or its events folder)");
  const rows: Array<{ name: string; timeline: AttemptTimeline }> = [];
  for (const file of folders.flatMap(eventFiles)) {
    const events = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Parameters<typeof attemptTimeline>[0][number]);
    rows.push({ name: basename(file, ".jsonl"), timeline: attemptTimeline(events) });
  }
  const out: string[] = [
    "| attempt | wall | setup | prefill | generation | unstreamed model | tools | context | other | turns | length-capped turns (tokens, model time) | completion tokens | evaluated prompt tokens |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  const total = { wall: 0, setup: 0, prefill: 0, generation: 0, unstreamed: 0, tools: 0, context: 0, other: 0, turns: 0, capped: 0, cappedTokens: 0, cappedMs: 0, completion: 0, evaluated: 0 };
  for (const { name, timeline: t } of rows) {
    out.push(
      `| ${name} | ${seconds(t.wall_ms)} | ${seconds(t.setup_ms)} | ${seconds(t.prefill_ms)} | ${seconds(t.generation_ms)} | ${seconds(t.unstreamed_ms)} | ${seconds(t.tools_ms)} | ${seconds(t.context_ms)} | ${seconds(t.other_ms)} | ${t.turns.length} | ${t.length_capped_turns} (${t.length_capped_tokens}, ${seconds(t.length_capped_ms)}) | ${t.completion_tokens} | ${t.evaluated_prompt_tokens} |`,
    );
    total.wall += t.wall_ms;
    total.setup += t.setup_ms;
    total.prefill += t.prefill_ms;
    total.generation += t.generation_ms;
    total.unstreamed += t.unstreamed_ms;
    total.tools += t.tools_ms;
    total.context += t.context_ms;
    total.other += t.other_ms;
    total.turns += t.turns.length;
    total.capped += t.length_capped_turns;
    total.cappedTokens += t.length_capped_tokens;
    total.cappedMs += t.length_capped_ms;
    total.completion += t.completion_tokens;
    total.evaluated += t.evaluated_prompt_tokens;
  }
  const share = (ms: number) => (total.wall > 0 ? ` (${Math.round((ms / total.wall) * 100)} %)` : "");
  out.push(
    `| **all ${rows.length}** | ${seconds(total.wall)} | ${seconds(total.setup)}${share(total.setup)} | ${seconds(total.prefill)}${share(total.prefill)} | ${seconds(total.generation)}${share(total.generation)} | ${seconds(total.unstreamed)}${share(total.unstreamed)} | ${seconds(total.tools)}${share(total.tools)} | ${seconds(total.context)}${share(total.context)} | ${seconds(total.other)}${share(total.other)} | ${total.turns} | ${total.capped} (${total.cappedTokens}, ${seconds(total.cappedMs)}${share(total.cappedMs)}) | ${total.completion} | ${total.evaluated} |`,
  );
  const streamed = rows.flatMap((row) => row.timeline.turns).filter((turn) => turn.unstreamed_ms === 0 && turn.generation_ms > 0);
  const rate = (tokens: number, ms: number) => (ms > 0 ? Math.round((tokens / ms) * 1000 * 10) / 10 : 0);
  const over = (key: "completion_tokens" | "evaluated_prompt_tokens" | "generation_ms" | "prefill_ms") => streamed.reduce((sum, turn) => sum + turn[key], 0);
  if (streamed.length > 0)
    out.push(
      "",
      `Streamed turns (${streamed.length}): ${rate(over("completion_tokens"), over("generation_ms"))} completion tokens/s; ${rate(over("evaluated_prompt_tokens"), over("prefill_ms"))} evaluated prompt tokens/s to the first token (queue and bus included).`,
    );
  if (showTurns) {
    out.push(
      "",
      "| attempt | turn | context | prefill | generation | unstreamed | prompt / cached / evaluated tokens | completion tokens | finish | compacted |",
      "|---|---|---|---|---|---|---|---|---|---|",
    );
    for (const { name, timeline } of rows)
      for (const turn of timeline.turns)
        out.push(
          `| ${name} | ${turn.iteration} | ${seconds(turn.context_ms)} | ${seconds(turn.prefill_ms)} | ${seconds(turn.generation_ms)} | ${seconds(turn.unstreamed_ms)} | ${turn.prompt_tokens} / ${turn.cached_prompt_tokens} / ${turn.evaluated_prompt_tokens} | ${turn.completion_tokens} | ${turn.finish_reason} | ${turn.compacted ? "yes" : ""} |`,
        );
  }
  process.stdout.write(`${out.join("\n")}\n`);
}

main();
