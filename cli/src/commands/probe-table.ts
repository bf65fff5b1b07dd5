import type { ModelProfile } from "@aide/contracts";

const rate = (value: number | undefined) => (value === undefined ? "n/a" : `${value} tok/s`);
const trials = (entry: { trials: number; valid: number; native?: number } | undefined) =>
  entry === undefined ? "n/a" : `${entry.valid}/${entry.trials} valid${entry.native !== undefined ? `, ${entry.native} native` : ""}`;

/** The probe's profile as a two-column table for the terminal. */
export function probeTable(profile: ModelProfile): string {
  const { context } = profile;
  const rows: Array<[string, string]> = [
    ["model", `${profile.model} (${profile.provider})`],
    ["trained window", context.trained === undefined ? "unknown" : `${context.trained} tokens`],
    ["loaded window", context.loaded === undefined ? "unknown" : `${context.loaded} tokens`],
    ...(context.long_prompt
      ? [
          ["long prompt", `sent ≈${context.long_prompt.sent}, evaluated ${context.long_prompt.evaluated}${context.long_prompt.truncated ? " — TRUNCATED by the server" : ", whole"}`] as [
            string,
            string,
          ],
        ]
      : []),
    ["window used", `${context.window} tokens`],
    ["prompt tier", profile.prompt_tier],
    ["prefill", rate(profile.speed.prefill_tokens_per_s)],
    ["decode", rate(profile.speed.decode_tokens_per_s)],
    ["chars per token", profile.chars_per_token === undefined ? "n/a" : String(profile.chars_per_token)],
    [
      "KV reuse",
      profile.kv_reuse === undefined
        ? "not measurable"
        : `${profile.kv_reuse.reused ? "yes" : "NO"} (turn 2: ${profile.kv_reuse.second_turn_evaluated} of ${profile.kv_reuse.second_turn_prompt} prompt tokens evaluated${profile.kv_reuse.last_turn ? `; turn ${profile.kv_reuse.last_turn.turn}: ${profile.kv_reuse.last_turn.evaluated} of ${profile.kv_reuse.last_turn.prompt}${profile.kv_reuse.last_turn.reused ? "" : " — NOT reused"}` : ""})`,
    ],
    [
      "stop",
      profile.stop === undefined
        ? "n/a"
        : `${profile.stop.finish_reason} after ${profile.stop.completion_tokens} tokens${profile.stop.leaked_marker ? ` — ${profile.stop.leaked_marker} LEAKED into the text` : ", no template marker in the text"}`,
    ],
    ["calls, grammar", trials(profile.tool_trials.with_grammar)],
    ["calls, no grammar", trials(profile.tool_trials.without_grammar)],
    ["grammar", profile.grammar ? "on" : "off"],
    ["tool calls", profile.tool_calls],
    ["chat template", `${profile.template.name}; system role ${profile.template.system_role ? "yes" : "no"}`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`);
  for (const note of profile.notes) lines.push(`  note: ${note}`);
  return lines.join("\n");
}
