import { cpSync, mkdtempSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";
import { AgentEventSchema, terminalEventTypes, type ExperimentSettings } from "@aide/contracts";
import { postJson, readEvents, type StackProcess } from "../helpers/stack-process.js";
import { repoRoot } from "../helpers/service-process.js";

/**
 * One real session on a fresh copy of examples/sample-project (the demo's task), and the checks
 * that must hold for any real model whatever it manages: schema-valid events, every reply either
 * prose or calls that parsed and validated, no reply cut by the token cap passed off as a call,
 * the KV cache reused on later turns, and an outcome the evidence gate got right (the hidden check,
 * the project's own `node --test`, is run here after the session). Success is never asserted.
 */
export const sampleTask = "Make the failing test pass. Run the tests with `node --test` to check.";

export interface SessionFigures {
  model: string;
  replies: number;
  /** Replies that parsed into at least one call, none of which failed argument validation. */
  wellFormed: number;
  /** Replies with no call that finished on their own (prose only). */
  prose: number;
  /** Replies the token cap cut (finish_reason "length"). */
  cut: number;
  /** Calls the tools refused for breaking their JSON Schema (a VALIDATION error the grammar should prevent). */
  invalidCalls: number;
  /** Calls refused by a tool's own rules beyond its schema (reported, not the grammar's to prevent). */
  toolRuleRefusals: number;
  calls: number;
  promptTokens: number[];
  evaluatedPromptTokens: (number | undefined)[];
  completionTokens: number;
  modelMs: number;
  outcome: string;
  hiddenCheckPassed: boolean;
}

/** A fresh copy of the sample project inside `root` (a workspace root the stack was started with). */
export function freshSampleProject(root: string): string {
  const workspace = join(mkdtempSync(join(root, "session-")), "sample-project");
  cpSync(join(repoRoot, "examples", "sample-project"), workspace, { recursive: true });
  return workspace;
}

/** The sample project's own test, run by us: the check the model never sees. */
export function hiddenCheck(workspace: string): boolean {
  return spawnSync(process.execPath, ["--test"], { cwd: workspace, encoding: "utf8", timeout: 60_000 }).status === 0;
}

export async function runSampleSession(
  stack: StackProcess,
  options: { root: string; model: string; maxIterations: number; experiment?: ExperimentSettings; timeoutMs: number },
): Promise<{ events: any[]; workspace: string; trace: string }> {
  const workspace = freshSampleProject(options.root);
  const started = await postJson(stack, "/api/agent/start", {
    task: sampleTask,
    mode: "act",
    workspace,
    model: options.model,
    max_iterations: options.maxIterations,
    // Edits and the test command run without asking; anything else is refused at once.
    auto_approve: { edits: true, commands: ["node --test", "npm test"], deny_unmatched: true },
    ...(options.experiment ? { experiment: options.experiment } : {}),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const terminal = new Set<string>(terminalEventTypes);
  const run = started.body.run as string;
  const events = await readEvents(stack, started.body.session as string, 0, (event) => terminal.has(event.type) && event.run === run && !(event.depth > 0), options.timeoutMs);
  const trace = `${events
    .map((event) => `${event.seq}:${event.type}`)
    .join(" ")
    .replace(/( \d+:model\.delta)+/g, " …")} → ${JSON.stringify(events.at(-1)?.payload).slice(0, 600)}`;
  return { events, workspace, trace };
}

/**
 * A call the tools refused for its arguments (the tools' VALIDATION code). Every such rule is in
 * the tool's JSON Schema now (types, ranges, lengths, required keys, and replace_in_file's
 * either/or argument sets as `anyOf`), so the default grammar must prevent all of them. A
 * refusal whose message the tool prefixes with "VALIDATION:" (a rule only in a tool's code; none
 * is left) is still counted apart in the figures.
 */
const isValidationError = (event: any) => event.payload.is_error === true && (event.payload.metadata?.error_code === "VALIDATION" || /\bVALIDATION\b/.test(String(event.payload.summary)));
const isToolRuleRefusal = (event: any) => isValidationError(event) && /^VALIDATION:/.test(String(event.payload.summary).trim());

/** The structural checks; returns the session's figures for the bench table. */
export function checkSession(events: any[], workspace: string, trace: string, options: { model: string; grammar: boolean }): SessionFigures {
  for (const event of events) expect(AgentEventSchema.safeParse(event).success, JSON.stringify(event).slice(0, 400)).toBe(true);
  expect(events[0].type).toBe("run.created");
  const requested = events.filter((event) => event.type === "model.requested");
  const responded = events.filter((event) => event.type === "model.responded");
  expect(responded.length, trace).toBeGreaterThanOrEqual(1);
  expect(
    responded.map((event) => event.payload.request_id),
    trace,
  ).toEqual(requested.map((event) => event.payload.request_id));

  // Calls by reply: tool.started/completed carry no request id, so a reply's calls are the
  // tool events between its model.responded and the next model.requested.
  const completedByReply: any[][] = responded.map(() => []);
  let reply = -1;
  for (const event of events) {
    if (event.type === "model.responded") reply += 1;
    else if (event.type === "tool.completed" && reply >= 0 && !(event.depth > 0)) completedByReply[reply].push(event);
  }
  let wellFormed = 0;
  let prose = 0;
  let cut = 0;
  let invalidCalls = 0;
  let toolRuleRefusals = 0;
  const invalidSummaries: string[] = [];
  for (const [index, event] of responded.entries()) {
    const { finish_reason: finish, tool_calls: calls } = event.payload;
    expect(["stop", "length", "tool_calls"], trace).toContain(finish);
    toolRuleRefusals += completedByReply[index].filter(isToolRuleRefusal).length;
    const invalidEvents = completedByReply[index].filter(isValidationError);
    const invalid = invalidEvents.length;
    invalidCalls += invalid;
    for (const bad of invalidEvents) invalidSummaries.push(`${bad.payload.tool} ${JSON.stringify(bad.payload.args)}: ${String(bad.payload.summary).slice(0, 200)}`);
    if (finish === "length") {
      // Cut by the token cap: reported as such, and nothing half-written was run from it.
      cut += 1;
      expect(calls, `a reply cut by max_tokens was executed: ${JSON.stringify(event.payload)}`).toBe(0);
      expect(completedByReply[index], trace).toEqual([]);
    } else if (calls > 0) {
      if (invalid === 0) wellFormed += 1;
    } else {
      prose += 1;
    }
  }
  if (options.grammar) {
    // Grammar on: every reply that finished is a call (the loop asks for one every turn) whose
    // arguments validate, and at least one call parsed in the session: cuts cannot hide that none did.
    expect(prose, `prose-only replies under the grammar: ${trace}`).toBe(0);
    expect(invalidCalls, `calls that failed validation under the grammar: ${invalidSummaries.join(" | ")} — ${trace}`).toBe(0);
    expect(wellFormed, `no reply parsed into a call: ${trace}`).toBeGreaterThanOrEqual(1);
    expect(wellFormed + cut, trace).toBe(responded.length);
  }

  // The KV cache: every later turn takes at least 90 % of the turn before's prompt from the cache,
  // so what it evaluates is the new part (the reply, re-rendered as the transcript holds it, and the
  // results). "Under half its prompt" failed a reused cache when one reply was long (Gemma on
  // llama-server: 402 of a 402-token prompt cached, then a 588-token reply and its result new).
  const promptTokens = responded.map((event) => event.payload.prompt_tokens as number);
  const evaluated = responded.map((event) => event.payload.evaluated_prompt_tokens as number | undefined);
  for (const [index, event] of responded.entries()) {
    expect(event.payload.prompt_tokens, trace).toBeGreaterThan(0);
    expect(event.payload.evaluated_prompt_tokens, `no evaluated-token figure: ${JSON.stringify(event.payload)}`).toBeTypeOf("number");
    if (index > 0) {
      const reusable = Math.floor(promptTokens[index - 1] * 0.9);
      expect(evaluated[index]!, `turn ${index + 1} re-evaluated turn ${index}'s prompt (${promptTokens[index - 1]} tokens): ${JSON.stringify(event.payload)}`).toBeLessThanOrEqual(
        promptTokens[index] - reusable,
      );
    }
  }

  // The outcome the evidence gate gave agrees with the hidden check: never `done` when it fails.
  const final = events[events.length - 1];
  expect(final.type, trace).not.toBe("run.cancelled");
  const outcome = final.type === "run.completed" ? (final.payload.state as string) : `failed:${final.payload.error.code}`;
  expect(final.payload.error?.code, trace).not.toBe("INTERNAL");
  expect(final.payload.error?.code, trace).not.toBe("MODEL_FAILED");
  const passed = hiddenCheck(workspace);
  if (outcome === "done") expect(passed, `a false done: the sample project's test fails. ${trace}`).toBe(true);
  return {
    model: options.model,
    replies: responded.length,
    wellFormed,
    prose,
    cut,
    invalidCalls,
    toolRuleRefusals,
    calls: responded.reduce((sum, event) => sum + (event.payload.tool_calls as number), 0),
    promptTokens,
    evaluatedPromptTokens: evaluated,
    completionTokens: responded.reduce((sum, event) => sum + (event.payload.completion_tokens as number), 0),
    modelMs: responded.reduce((sum, event) => sum + (event.payload.duration_ms as number), 0),
    outcome,
    hiddenCheckPassed: passed,
  };
}
