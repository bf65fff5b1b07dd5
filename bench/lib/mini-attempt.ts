/**
 * One mini-swe-agent attempt as its users run it unattended: `mini -y --exit-immediately` (yolo:
 * every command the model writes runs unconfirmed, and it ends when the model submits) with its
 * default config (mini.yaml, bash tool calls), the model `openai/<name>` behind an
 * OpenAI-compatible endpoint through litellm's `api_base`, the cost limit off (`-l 0`: a local
 * model has no price; the bench's budget is the limit). It claims success when it submitted;
 * its answer to a question is its submission and its last message.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runProcessGroup } from "./process-group.js";
import { endedBy, type PeerAttemptInput, type PeerAttemptOutput } from "./peer-attempt.js";
import { sandboxArgs, sandboxEnv } from "./peer-sandbox.js";

interface Trajectory {
  info?: { exit_status?: string; submission?: string };
  messages?: Array<{ role?: string; content?: unknown }>;
}

export function readTrajectory(file: string): Trajectory | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Trajectory;
  } catch {
    return undefined;
  }
}

/** The submission and the model's last message: what a person reads at the end of the run. */
export function trajectoryAnswer(trajectory: Trajectory): string {
  const last = trajectory.messages?.findLast((message) => message.role === "assistant");
  const text = typeof last?.content === "string" ? last.content : "";
  return [trajectory.info?.submission ?? "", text]
    .filter((part) => part.trim() !== "")
    .join("\n")
    .trim();
}

export async function runMiniAttempt(input: PeerAttemptInput): Promise<PeerAttemptOutput> {
  const trajectoryFile = join(input.sandbox.home, "mini-trajectory.json");
  const command = [
    input.command,
    "-y",
    "--exit-immediately",
    "-l",
    "0",
    "-m",
    `openai/${input.alias}`,
    "-t",
    input.prompt,
    "-o",
    trajectoryFile,
    "-c",
    "mini.yaml",
    "-c",
    `model.model_kwargs.api_base=${input.apiBase}`,
    "-c",
    "model.model_kwargs.api_key=local",
    "-c",
    `environment.cwd=${input.sandbox.workspace}`,
  ];
  const run = await runProcessGroup("bwrap", sandboxArgs(input.sandbox, command), {
    env: sandboxEnv(input.sandbox, {
      // Configured by these flags: no first-run questions, no cost look-up for a model without a price.
      MSWEA_CONFIGURED: "true",
      MSWEA_COST_TRACKING: "ignore_errors",
      MSWEA_GLOBAL_CONFIG_DIR: join(input.sandbox.home, "mini-swe-agent"),
    }),
    timeoutMs: input.budgetMs,
    signal: input.signal,
    logFile: input.logFile,
  });
  const trajectory = existsSync(trajectoryFile) ? readTrajectory(trajectoryFile) : undefined;
  const status = trajectory?.info?.exit_status;
  const claimed = status === "Submitted";
  const outcome = endedBy(run) ?? (status !== undefined && status !== "" ? status : `exit-${run.code ?? run.killedBy}`);
  return { outcome, claimed, answer: trajectory !== undefined ? trajectoryAnswer(trajectory) : "", run };
}
