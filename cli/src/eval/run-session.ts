/**
 * One eval attempt's session, headless, through the gateway as `aide run --json` does it (the same
 * start body, the same event stream), but inside the runner's process: a per-attempt `aide run`
 * cost a Node start-up and a module load, the larger part of the runner's own overhead. Edits and
 * the allow-listed commands are approved by the start's policy, everything else is refused at once
 * (`deny_unmatched`: no approval ever waits). The project's instructions files (AGENTS.md…) are
 * trusted for the run (`trust_instructions`), unless the arm sets `instructions` (off: none). Each event is written to the attempt's events file as
 * it arrives; past the budget the run is aborted and, if it does not end, given up.
 */
import { appendFileSync } from "node:fs";
import { jsonForScreen, terminalEventTypes, type ExperimentSettings, type WsFrame } from "@aide/contracts";
import { combineRunPolicy, runPolicyFromFlags } from "../client/run-policy.js";
import { openEventStream } from "../client/event-stream.js";
import type { GatewayClient } from "../client/gateway-client.js";
import { GatewayError } from "../client/gateway-error.js";
import { evalCommandRules } from "./script-rules.js";

/** Commands a task's session may run without asking: the languages' own runners. */
export const evalAllowedCommands = [
  "node",
  "npm test",
  "npm run test",
  "python3",
  "python",
  "pytest",
  "go test",
  "go vet",
  "go build",
  "go run",
  "cargo test",
  "cargo build",
  "cargo check",
  "cargo run",
  "javac",
  "java",
  "bash",
  "sh",
  "ls",
  "cat",
  "grep",
];

export interface SessionEvent {
  type: string;
  seq?: number;
  ts?: string;
  run?: string;
  depth?: number;
  strategy?: string;
  scheduler?: string;
  context_policy?: string;
  payload?: Record<string, unknown>;
}

export interface SessionOutput {
  events: SessionEvent[];
  session?: string;
  /** Why the session could not be run or followed (a gateway code and message). */
  error?: { code: string; message: string };
  /** The run did not end within the budget and its abort (grace period included). */
  gaveUp: boolean;
}

export interface SessionInput {
  client: GatewayClient;
  prompt: string;
  workspace: string;
  model: string;
  experiment?: ExperimentSettings;
  budgetMs: number;
  maxIterations?: number;
  /** How long an aborted run may take to publish its end. */
  abortGraceMs?: number;
  /** Events are written here; absent, kept in memory only. */
  eventsFile?: string;
  /**
   * Abort the run as soon as its own event of this type arrives (a warm-up: `model.requested`
   * means the model is loaded and the context built), then follow it to its end.
   */
  abortAt?: string;
}

/**
 * The start's approval policy: `--auto-approve edits --allow-command … --deny-rest`, the package
 * scripts bound to the digest of the workspace's package.json scripts (`evalCommandRules`).
 */
export function evalApprovalPolicy(workspace: string) {
  return combineRunPolicy({}, runPolicyFromFlags({ allowCommand: evalCommandRules(workspace, evalAllowedCommands), autoApprove: "edits", denyRest: true })).autoApprove;
}

export async function runSession(input: SessionInput): Promise<SessionOutput> {
  const output: SessionOutput = { events: [], gaveUp: false };
  let start: { session: string; run: string };
  try {
    start = await input.client.start({
      task: input.prompt,
      workspace: input.workspace,
      mode: "act",
      model: input.model,
      auto_approve: evalApprovalPolicy(input.workspace),
      ...(input.experiment ? { experiment: input.experiment } : {}),
      // An unset `instructions` setting leaves the files to the person's consent, as in any run; headless, the
      // attempt gives that consent as `aide run --trust-instructions` does. An arm's setting wins (off: none).
      ...(input.experiment?.instructions === undefined ? { trust_instructions: true } : {}),
      ...(input.maxIterations !== undefined ? { max_iterations: input.maxIterations } : {}),
    });
  } catch (error) {
    output.error = error instanceof GatewayError ? { code: error.code, message: error.message } : { code: "INTERNAL", message: (error as Error).message };
    return output;
  }
  output.session = start.session;
  await new Promise<void>((resolve) => {
    let ended = false;
    let aborted = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(budget);
      clearTimeout(grace);
      stream.close();
      resolve();
    };
    let grace: NodeJS.Timeout | undefined;
    const budget = setTimeout(() => {
      void input.client.abort(start.session, "the eval budget ran out").catch(() => undefined);
      grace = setTimeout(() => {
        output.gaveUp = true;
        end();
      }, input.abortGraceMs ?? 15_000);
    }, input.budgetMs);
    const stream = openEventStream({
      ...input.client.connection,
      session: start.session,
      since: 0,
      onFrame(frame: WsFrame) {
        if (frame.type === "error") {
          output.error = frame.error;
          end();
          return;
        }
        if (frame.type !== "event") return;
        const event = frame.event as unknown as SessionEvent;
        if (input.eventsFile !== undefined) appendFileSync(input.eventsFile, `${jsonForScreen(JSON.stringify(event))}\n`);
        output.events.push(event);
        const own = (event.run === undefined || event.run === start.run) && !(typeof event.depth === "number" && event.depth > 0);
        if (input.abortAt !== undefined && own && event.type === input.abortAt && !aborted) {
          aborted = true;
          void input.client.abort(start.session, "warm-up done").catch(() => undefined);
        }
        // Only this run's end ends the attempt (never a child agent's).
        const terminal = (terminalEventTypes as readonly string[]).includes(event.type);
        if (terminal && own) end();
      },
      onGiveUp(error) {
        output.error = { code: "UNAVAILABLE", message: `lost the event stream: ${error.message}` };
        end();
      },
    });
  });
  return output;
}
