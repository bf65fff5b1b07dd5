import type { AgentEventPayload, AgentEventType } from "@aide/contracts";

const id = "warm0000000000000000000a";
const digest = "0".repeat(64);
const callArgs = { path: "src/index.ts", content: { bytes: 12, sha256: digest } };

/**
 * One valid payload of every event type, for the warm-up at start (`EventSink.warm`): the first
 * validation of each schema in a fresh process costs milliseconds (zod builds the union's lookup
 * and compiles each object's parser; V8 compiles the render and encode paths), which no run's
 * turn should pay. Typed per type, so a new event type does not compile until it has a sample
 * here, and each sample must pass its schema (tested). The strings carry a control and an
 * invisible character so the rendering's replacement paths run too.
 */
export const warmEventSamples: { [T in AgentEventType]: AgentEventPayload<T> } = {
  "run.created": {
    task: "Warm up\u0007 the loop",
    mode: "act",
    workspace: "/workspace",
    model: "(model service default)",
    unsandboxed_services: false,
    experiment: { strategy: "s", scheduler: "s", context_policy: "c", edit_format: "diff", code_map: false },
  },
  "run.state": { state: "paused", reason: "store_unavailable", detail: "warm-up" },
  "context.built": {
    messages: 2,
    dropped: 0,
    chars: 4_000,
    compacted: false,
    tools: ["read_file", "attempt_completion"],
    tier: "full",
    window_tokens: 4_096,
    code_map_tokens: 10,
    failing_output_chars: 10,
  },
  "model.requested": { request_id: id, model: "(default)", iteration: 1, grammar_excluded: ["attempt_completion"] },
  "model.delta": { request_id: id, text: "Reading\u202e the file" },
  "model.responded": {
    request_id: id,
    text: "Reading the file.",
    tool_calls: 1,
    finish_reason: "stop",
    prompt_tokens: 100,
    completion_tokens: 10,
    duration_ms: 1.5,
    cached_prompt_tokens: 90,
    model: "m",
    evaluated_prompt_tokens: 10,
    call_errors: 1,
    cut: { tool: "write_file", parameter: "content", limit_tokens: 10 },
  },
  "tool.started": { call_id: id, tool: "write_file", args: callArgs, server: "srv" },
  "tool.completed": {
    call_id: id,
    tool: "read_file",
    args: { path: "f.txt" },
    is_error: false,
    summary: "file\u001b[31m 0",
    duration_ms: 1.2,
    metadata: { path: "f.txt", lines: 1 },
    output_preview: "file 0\n",
    output_lines: 1,
  },
  "tool.batch_limited": { requested: 12, executed: 8 },
  "approval.requested": {
    approval: id,
    call_id: id,
    tool: "run_command",
    args: { command: "npm test\u001b" },
    diff: "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\u200b\n",
    command: "npm test\u001b",
    paths: ["src/a\u202e.ts"],
    protected: [{ path: "package.json", reason: "automation" }],
    invisible: [{ path: "src/a.ts", line: 1, codepoint: "U+202E", kind: "bidi" }],
    network: "consent_required",
    args_digest: digest,
    expires_at: "2026-01-01T00:00:00.000Z",
    model_hint: "tests",
    checkpoint_failed: { code: "CHECKPOINT_FAILED", message: "warm-up" },
    kind: "tool",
    memory: { action: "remember", text: "t" },
    mcp: { server: "s", tool: "t", arguments_json: "{}", hidden_characters: 1 },
    scripts: [{ source: "package.json", name: "test", text: "vitest" }],
    scripts_digest: digest,
  },
  "approval.decided": { approval: id, decision: "approve", feedback: "ok", checkpoint: "retry", network: false, instructions_answer: "trust" },
  "checkpoint.created": { checkpoint: id, label: "before write_file", files_changed: 1, duration_ms: 3 },
  "checkpoint.failed": { error: { code: "CHECKPOINT_FAILED", message: "warm-up" } },
  "checkpoint.restored": { checkpoint: id, mode: "files", truncated_messages: 0 },
  "completion.rejected": { missing: ["a test run"], instruction: "Run the tests.", attempt: 1, claims: [{ kind: "tests_pass", quote: "tests pass", events_show: "no test run" }] },
  "completion.unverified": { missing: ["a test run"], result: "Done.", claims: [{ kind: "count", quote: "3 files", events_show: "1 file" }] },
  "agent.spawned": { child_run: id, role: "explorer", task: "look", write: false },
  "agent.completed": { child_run: id, state: "done", result: "found" },
  "message.received": { text: "also this" },
  "mode.changed": { mode: "plan" },
  "session.auto_approve_changed": { auto_approve: { edits: false, commands: ["npm test"] } },
  "model.probing": { model: "m", stage: "speed", step: 1, steps: 5, percent: 20, elapsed_ms: 100 },
  "plan.updated": { items: [{ step: "read", status: "in_progress" }] },
  "memory.loaded": { memories: [{ id, text: "prefers pnpm", author: "person", created_at: "2026-01-01T00:00:00.000Z" }] },
  "instructions.loaded": { files: [{ path: "AGENTS.md", digest, tokens: 10, truncated: false, source: "trusted" }] },
  "instructions.skipped": { files: [{ path: "AGENTS.md", digest, reason: "never" }] },
  "run.completed": {
    state: "done",
    result: "Read\u0000 all the files.",
    iterations: 20,
    files_changed: ["a"],
    commands_run: 1,
    checkpoints: [id],
    automation_writes: [],
    evidence: ["tool.completed"],
  },
  "run.failed": { error: { code: "INTERNAL", message: "warm-up" }, iterations: 1 },
  "run.cancelled": { reason: "warm-up" },
};
