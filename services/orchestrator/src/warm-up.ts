import type { Logger } from "pino";
import { ModelChatReplySchema, ToolExecReplySchema, type ModelChatResult, type ToolDescriptor } from "@aide/contracts";
import { wrapToolResult } from "./context/index.js";
import type { EventSink } from "./events/event-sink.js";
import { redactSecrets, redactSecretsDeep } from "./events/redact-secrets.js";
import { outputPreview, sanitizeArgs, summarizeOutput } from "./events/sanitize-args.js";
import { warmEventSamples } from "./events/warm-event-samples.js";
import { extractClaims } from "./evidence/extract-claims.js";
import { mergeCatalog } from "./orchestrator-tools/orchestrator-tool-descriptors.js";
import { parseCallsStep } from "./turn/parse-tool-calls.js";
import { isBareInteractive, isDataFileExecution } from "./guards/index.js";
import { classifyNetwork } from "./network/index.js";
import { createRunPolicies } from "./run/run-policies.js";
import { secretPathRule } from "./secrets/secret-paths.js";
import { recordJson } from "./session/record-json.js";
import { newSessionRecord } from "./session/session-record.js";

export interface WarmUpReport {
  ms: number;
  /** Event types whose sample failed its schema (a bug in the samples; empty normally). */
  failed: string[];
}

const id = "warm0000000000000000000a";
const output = "file 0\nAPI_KEY=sk-warmupwarmupwarmupwarmup\u001b[0m\n";

/**
 * First-use work a fresh process would otherwise do inside the first run's turns, done at start
 * before the service answers anything: every event schema's first validation (with the render
 * and encode paths around it), the model's and the tools' reply schemas, the reply parser, the
 * tool-output path of `tool.completed` (redaction, preview, summary), the model's wrapping of a
 * result, the claims extraction, a call's guards (secret paths, command checks, network
 * classification, retry guards) and the session record's encoding. Only pure functions on samples: nothing is published, stored
 * or sent. Costs some milliseconds of start time, once.
 */
export function warmUp(events: EventSink, logger: Logger): WarmUpReport {
  const started = performance.now();
  const failed = events.warm(warmEventSamples);
  const reply: ModelChatResult = {
    request_id: id,
    model: "m",
    text: "Reading it.\n<read_file>\n<path>f0.txt</path>\n</read_file>\n<attempt_completion>\n<result>Done: 1 test passed.</result>\n</attempt_completion>",
    tool_calls: [],
    finish_reason: "stop",
    usage: { prompt_tokens: 10, completion_tokens: 10 },
    timings: { total_ms: 1 },
  };
  ModelChatReplySchema.safeParse({ ok: true, result: reply });
  ToolExecReplySchema.safeParse({ ok: true, result: { call_id: id, name: "read_file", is_error: false, output, metadata: { path: "f0.txt" }, notices: [], changed_paths: [], duration_ms: 1 } });
  ToolExecReplySchema.safeParse({ ok: false, error: { code: "INTERNAL", message: "warm-up" } });
  // The service's own tools are not known yet (the tools service may still be starting): a stand-in.
  const readFile: ToolDescriptor = {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    read_only: true,
    parallel_safe: true,
    handled_by: "tools",
  };
  const catalog = mergeCatalog([readFile]);
  parseCallsStep(reply, catalog, () => id);
  const args = redactSecretsDeep(sanitizeArgs({ path: "f0.txt", content: "x".repeat(40) }));
  const summary = summarizeOutput(redactSecrets(output));
  const preview = outputPreview(redactSecrets(output));
  wrapToolResult({ call_id: id, tool: "read_file", output: `${summary}${preview.output_preview}${JSON.stringify(args)}`, is_error: false, error_code: undefined });
  extractClaims("Done: ran `npm test`, 12 tests passed, exit code 0, changed src/a.ts.");
  // A call's guards before it runs: the secret-path table, the command checks, the retry guards.
  secretPathRule("src/f0.txt");
  isBareInteractive("node t.js");
  isDataFileExecution("node t.js");
  classifyNetwork("npm test && curl https://example.com");
  // A run's policies classify its task (task-intent's patterns compile on first use: 30–100 ms
  // for the first task of a fresh process, before its first turn): a question, a change, a run.
  for (const task of ["What do the f files say?", "Fix the failing test in src/a.ts", "Run the tests and tell me what fails"]) {
    createRunPolicies(task).guards.check({ name: "read_file", arguments: { path: "f0.txt" } });
  }
  // The session write's encoding (a record with a transcript).
  const record = newSessionRecord({ id, user: "warm-up", workspace: "/workspace", mode: "act", task: "warm up", max_iterations: 1 }, new Date(0).toISOString());
  record.transcript.push({ role: "user", content: "warm up" }, { role: "assistant", content: reply.text });
  recordJson(record);
  const ms = Math.round((performance.now() - started) * 10) / 10;
  logger.info({ ms, event_types: Object.keys(warmEventSamples).length }, "warmed up");
  return { ms, failed };
}
