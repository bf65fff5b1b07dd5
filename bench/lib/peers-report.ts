/**
 * The peers bench's rows (one per attempt) and its report: per agent, the tasks its hidden
 * checks passed, the attempts where it claimed success while the check failed, the median time
 * of an attempt and the model calls it made; then task by task. `report.json` holds the same
 * figures as `report.md`.
 */
import { z } from "zod";
import { percentile } from "./results.js";

export const peerAgents = ["aide", "aider", "mini-swe-agent"] as const;
export type PeerAgent = (typeof peerAgents)[number];

export const PeerRowSchema = z.object({
  run: z.string(),
  attempt: z.string(),
  task: z.string(),
  language: z.string(),
  category: z.string(),
  agent: z.enum(peerAgents),
  model: z.string(),
  repeat: z.number().int().nonnegative(),
  /** How the agent ended, in its own terms (aide: done / unverified / failed …). */
  outcome: z.string(),
  code: z.string().optional(),
  /** It said it succeeded: aide's run ended done, aider applied an edit (or answered), mini-swe-agent submitted. */
  claimed: z.boolean(),
  /** The task's hidden check passed. */
  passed: z.boolean(),
  false_claim: z.boolean(),
  /** The agent's own time (its process or aide's session), the check not included. */
  wall_ms: z.number().int().nonnegative(),
  timed_out: z.boolean(),
  check_ms: z.number().int().nonnegative(),
  check_exit_code: z.number().int().nullable(),
  check_timed_out: z.boolean(),
  /** Chat calls the counting proxy forwarded for this attempt. */
  model_calls: z.number().int().nonnegative(),
  failed_calls: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  calls_with_usage: z.number().int().nonnegative(),
  error: z.string().optional(),
});
export type PeerRow = z.infer<typeof PeerRowSchema>;

export interface AgentSummary {
  agent: PeerAgent;
  attempts: number;
  passed: number;
  claimed: number;
  /** Claimed success while the hidden check failed. */
  false_claims: number;
  timed_out: number;
  median_wall_s: number;
  model_calls: number;
  median_model_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
}

const median = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export function summarize(rows: PeerRow[], agents: readonly PeerAgent[]): AgentSummary[] {
  return agents.map((agent) => {
    const own = rows.filter((row) => row.agent === agent);
    return {
      agent,
      attempts: own.length,
      passed: own.filter((row) => row.passed).length,
      claimed: own.filter((row) => row.claimed).length,
      false_claims: own.filter((row) => row.false_claim).length,
      timed_out: own.filter((row) => row.timed_out).length,
      median_wall_s: Math.round(median(own.map((row) => row.wall_ms)) / 100) / 10,
      model_calls: own.reduce((sum, row) => sum + row.model_calls, 0),
      median_model_calls: median(own.map((row) => row.model_calls)),
      prompt_tokens: own.reduce((sum, row) => sum + row.prompt_tokens, 0),
      completion_tokens: own.reduce((sum, row) => sum + row.completion_tokens, 0),
    };
  });
}

export interface PeersReport {
  meta: Record<string, unknown>;
  agents: AgentSummary[];
  tasks: Array<{ task: string; results: Partial<Record<PeerAgent, string>> }>;
  p90_wall_s: Partial<Record<PeerAgent, number>>;
}

/** One cell of the task table: pass / fail, `!` when the agent claimed success the check refused. */
const cell = (rows: PeerRow[]) =>
  rows.map((row) => `${row.passed ? "pass" : row.false_claim ? "FAIL!" : "fail"} (${row.outcome}, ${Math.round(row.wall_ms / 1000)} s, ${row.model_calls} calls)`).join("; ");

export function buildPeersReport(rows: PeerRow[], agents: readonly PeerAgent[], meta: Record<string, unknown>): PeersReport {
  const taskIds = [...new Set(rows.map((row) => row.task))].sort();
  return {
    meta,
    agents: summarize(rows, agents),
    tasks: taskIds.map((task) => ({ task, results: Object.fromEntries(agents.map((agent) => [agent, cell(rows.filter((row) => row.task === task && row.agent === agent))])) })),
    p90_wall_s: Object.fromEntries(
      agents.map((agent) => [
        agent,
        Math.round(
          percentile(
            rows.filter((row) => row.agent === agent).map((row) => row.wall_ms),
            90,
          ) / 1000,
        ),
      ]),
    ),
  };
}

export function peersMarkdown(report: PeersReport, notes: string[]): string {
  const agents = report.agents.map((summary) => summary.agent);
  const lines = [
    `# aide, aider and mini-swe-agent on one llama-server`,
    "",
    ...notes,
    "",
    "| agent | attempts | passed | claimed success | claimed while the check failed | timed out | median time (s) | model calls (median per attempt) | prompt / completion tokens |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...report.agents.map(
      (s) =>
        `| ${s.agent} | ${s.attempts} | ${s.passed} | ${s.claimed} | ${s.false_claims} | ${s.timed_out} | ${s.median_wall_s} | ${s.model_calls} (${s.median_model_calls}) | ${s.prompt_tokens} / ${s.completion_tokens} |`,
    ),
    "",
    "Task by task (`FAIL!`: claimed success, the hidden check failed):",
    "",
    `| task | ${agents.join(" | ")} |`,
    `| --- | ${agents.map(() => "---").join(" | ")} |`,
    ...report.tasks.map((task) => `| ${task.task} | ${agents.map((agent) => task.results[agent] || "-").join(" | ")} |`),
    "",
    "```json",
    JSON.stringify(report.meta, null, 2),
    "```",
    "",
  ];
  return lines.join("\n");
}
