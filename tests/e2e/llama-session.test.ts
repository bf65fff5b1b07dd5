import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentEventSchema, terminalEventTypes } from "@aide/contracts";
import { getJson, postJson, readEvents, startStackProcess, type StackProcess } from "../helpers/stack-process.js";
import { sharedModelPath } from "../helpers/service-process.js";

/**
 * A real session through the whole stack (`aide up` as a process, sandboxed services, gateway
 * REST + WebSocket) with the real local provider: node-llama-cpp running the shipped 260K
 * TinyStories GGUF. The model cannot do a task, so this checks what must hold for any local run:
 * streamed deltas, real token counts, grammar-constrained replies that always parse into calls
 * from the catalog, nothing mutated or asked for in plan mode, and a terminal state that is not
 * `done` (nothing was verified). The model service must still be up afterwards.
 *
 * This test found three bugs, since fixed: the grammar for the real catalog was refused by
 * llama.cpp (`[^<]{1,2000}`), the orchestrator sent no `tool_choice` (so prose could run to
 * max_tokens with no call), and a CONTEXT_FULL reply failed the run instead of compacting.
 * What remains by design: a free-text value (a file's content, a completion's result) is not
 * bounded by the grammar, so a reply cut by max_tokens can end inside a call; such a reply has
 * finish_reason "length" and is treated as a mistake by the loop, never executed half-written.
 * Debug: LLAMA_E2E_DUMP=/tmp/x.json writes the session's events and the `aide up` output.
 */
const haveModel = existsSync(sharedModelPath);
const skipReason = `SKIPPED: no GGUF at ${sharedModelPath} (set AIDE_TEST_MODEL or add ../shared/models/stories260K.gguf)`;
const title = haveModel ? "a plan-mode session with the real llama provider (stories260K, aide up, real processes)" : `llama session — ${skipReason}`;

const MAX_ITERATIONS = 3;
/** The shipped GGUF's trained context; the model service never makes a context larger than it. */
const SHIPPED_CONTEXT = 2048;
const WIDE_CONTEXT = 8192;

/**
 * The orchestrator's fixed system prompt alone is ~2,900 tokens in this model's 512-token
 * vocabulary, more than the 2,048 the shipped file was trained with. To run real turns, the test
 * derives a copy (in its temp dir, nothing downloaded) whose header says `llama.context_length`
 * 8192: same weights, same tokenizer, same grammar path; only the context cap differs.
 */
function widenContext(source: string, target: string, contextLength: number): void {
  const bytes = readFileSync(source);
  const key = Buffer.from("llama.context_length");
  const at = bytes.indexOf(key);
  if (at < 8 || bytes.readBigUInt64LE(at - 8) !== BigInt(key.length)) throw new Error(`${source}: no llama.context_length key`);
  const valueType = bytes.readUInt32LE(at + key.length);
  if (valueType !== 4) throw new Error(`${source}: llama.context_length has GGUF type ${valueType}, expected 4 (uint32)`);
  if (bytes.readUInt32LE(at + key.length + 4) !== SHIPPED_CONTEXT) throw new Error(`${source}: unexpected trained context`);
  bytes.writeUInt32LE(contextLength, at + key.length + 4);
  writeFileSync(target, bytes);
}

const MUTATING_TOOLS = ["write_file", "replace_in_file", "apply_patch", "delete_file", "move_file", "run_command"];

describe("the stack with the real local model provider", () => {
  let root: string;
  let workspace: string;
  let stack: StackProcess | undefined;
  const files: Record<string, string> = {
    "README.md": "# tiny\nA project that prints hello.\n",
    "src/hello.js": "console.log('hello');\n",
  };

  beforeAll(async () => {
    if (!haveModel) return;
    root = mkdtempSync(join(tmpdir(), "aide-llama-e2e-"));
    workspace = join(root, "workspace");
    mkdirSync(join(workspace, "src"), { recursive: true });
    for (const [path, text] of Object.entries(files)) writeFileSync(join(workspace, path), text);
    const wide = join(root, "stories260K-ctx8k.gguf");
    widenContext(sharedModelPath, wide, WIDE_CONTEXT);
    // One thread: measured tens of ms per reply on 2 cores; the default count is far slower.
    const common = { provider: "llama", threads: 1, maxOutputTokens: 256, maxIterations: MAX_ITERATIONS, maxSessions: 1, grammar: true };
    const models = join(root, "models.json");
    writeFileSync(
      models,
      JSON.stringify({
        default: "stories",
        models: [
          { ...common, id: "stories", label: "stories260K (shipped)", file: sharedModelPath, contextSize: SHIPPED_CONTEXT, contextBudget: SHIPPED_CONTEXT },
          { ...common, id: "stories-8k", label: "stories260K, 8k context header", file: wide, contextSize: WIDE_CONTEXT, contextBudget: WIDE_CONTEXT },
        ],
      }),
    );
    stack = await startStackProcess({ aideHome: join(root, "home"), args: ["--workspace", workspace, "--models-config", models] });
  }, 120_000);

  afterAll(async () => {
    if (!haveModel) return;
    const code = stack ? await stack.stop() : 0;
    rmSync(root, { recursive: true, force: true });
    expect(code, stack?.output().slice(-4000)).toBe(0);
  });

  it.skipIf(!haveModel)(`${haveModel ? "" : `${skipReason}: `}the shipped GGUF as the default model: a prompt larger than its 2048-token context fails the run with a coded CONTEXT_FULL, and the model service stays up`, async () => {
    const s = stack!;
    const started = await postJson(s, "/api/agent/start", { task: "Say what the project does.", mode: "plan", workspace, max_iterations: MAX_ITERATIONS });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const session = started.body.session as string;
    const terminal = new Set<string>(terminalEventTypes);
    const events = await readEvents(s, session, 0, (event) => terminal.has(event.type), 30_000);
    const trace = events.map((event) => `${event.seq}:${event.type}`).join(" ");
    expect(trace).toBe(events.map((event, index) => `${index + 1}:${event.type}`).join(" "));
    for (const event of events) expect(AgentEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events.filter((event) => event.type === "model.requested").length, trace).toBe(1);
    expect(events.filter((event) => event.type === "tool.started"), trace).toEqual([]);
    const final = events[events.length - 1];
    expect(final.type, JSON.stringify(final.payload)).toBe("run.failed");
    // The refusal keeps its code and numbers (needed vs the context's 2048), whatever code wraps it.
    const failure = `${final.payload.error.code}: ${final.payload.error.message}`;
    expect(failure).toContain("CONTEXT_FULL");
    expect(failure).toContain(`holds ${SHIPPED_CONTEXT}`);
    expect(final.payload.iterations).toBe(1);
    const health = await getJson(s, "/api/health");
    expect(health.body.services.model, JSON.stringify(health.body)).toBe(true);
  }, 60_000);

  it.skipIf(!haveModel)(title, async () => {
    const s = stack!;
    const started = await postJson(s, "/api/agent/start", {
      task: "Read README.md and say in one sentence what the project does.",
      mode: "plan",
      workspace,
      model: "stories-8k",
      max_iterations: MAX_ITERATIONS,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const session = started.body.session as string;

    const terminal = new Set<string>(terminalEventTypes);
    const events = await readEvents(s, session, 0, (event) => terminal.has(event.type), 80_000);
    const sequence = events.map((event) => `${event.seq}:${event.type}`).join(" ");
    // Failure messages carry how the run ended (e.g. a MODEL_FAILED with the provider's reason).
    const trace = `${sequence.replace(/( \d+:model\.delta)+/g, " …deltas…")} → ${JSON.stringify(events.at(-1)?.payload)}`;
    if (process.env.LLAMA_E2E_DUMP) writeFileSync(process.env.LLAMA_E2E_DUMP, JSON.stringify({ events, output: s.output() }, null, 1));

    // Contiguous from 1, every event schema-valid, one run.
    expect(sequence).toBe(events.map((event, index) => `${index + 1}:${event.type}`).join(" "));
    for (const event of events) expect(AgentEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events[0].type).toBe("run.created");
    expect(events[0].payload).toMatchObject({ mode: "plan", model: "stories-8k", workspace });
    expect(new Set(events.map((event) => event.run)).size).toBe(1);

    // The real provider answered: requested/responded pairs by request id, real token counts.
    const requested = events.filter((event) => event.type === "model.requested");
    const responded = events.filter((event) => event.type === "model.responded");
    expect(requested.length, trace).toBeGreaterThanOrEqual(1);
    expect(requested.length).toBeLessThanOrEqual(MAX_ITERATIONS);
    expect(responded.map((event) => event.payload.request_id), trace).toEqual(requested.map((event) => event.payload.request_id));
    for (const event of requested) expect(event.payload.model).toBe("stories-8k");
    for (const event of responded) {
      expect(event.payload.prompt_tokens, JSON.stringify(event.payload)).toBeGreaterThan(0);
      expect(event.payload.completion_tokens, JSON.stringify(event.payload)).toBeGreaterThan(0);
      expect(["stop", "length", "tool_calls"]).toContain(event.payload.finish_reason);
    }

    // Streamed: deltas arrived for the requests, each belonging to a request of this run.
    const deltas = events.filter((event) => event.type === "model.delta");
    const requestIds = new Set(requested.map((event) => event.payload.request_id));
    expect(deltas.length, trace).toBeGreaterThanOrEqual(1);
    for (const delta of deltas) expect(requestIds.has(delta.payload.request_id)).toBe(true);

    // Grammar-constrained decoding: every reply parsed into at least one call (no reply without a
    // usable call, which is what the orchestrator's parse-error / nudge recovery reacts to), and
    // every call names a tool the run offered (context.built lists them). Tools the orchestrator
    // runs itself (update_plan, recall, attempt_completion, refusals) emit only tool.completed.
    const offered = new Set(events.filter((event) => event.type === "context.built").flatMap((event) => event.payload.tools as string[]));
    expect(offered.size).toBeGreaterThan(0);
    // A reply the token cap cut ("length") may end inside a call; every reply that finished did parse.
    for (const event of responded) {
      if (event.payload.finish_reason !== "length") expect(event.payload.tool_calls, `no usable call in: ${JSON.stringify(event.payload)}`).toBeGreaterThanOrEqual(1);
    }
    const cutWithoutCall = responded.filter((event) => event.payload.tool_calls === 0 && event.payload.finish_reason === "length");
    const toolsStarted = events.filter((event) => event.type === "tool.started");
    const completed = events.filter((event) => event.type === "tool.completed");
    expect(completed.length + cutWithoutCall.length, trace).toBeGreaterThanOrEqual(1);
    for (const event of [...toolsStarted, ...completed]) expect(offered.has(event.payload.tool), `${event.payload.tool} is not in ${[...offered].join(", ")}`).toBe(true);
    const completedIds = new Set(completed.map((event) => event.payload.call_id));
    for (const event of toolsStarted) expect(completedIds.has(event.payload.call_id), `${event.payload.call_id} never completed`).toBe(true);

    // Plan mode: nothing mutates, nothing asks a person, no checkpoint is taken.
    for (const type of ["approval.requested", "approval.decided", "checkpoint.created"]) {
      expect(events.filter((event) => event.type === type), type).toEqual([]);
    }
    for (const event of completed) {
      if (MUTATING_TOOLS.includes(event.payload.tool)) expect(event.payload.is_error, JSON.stringify(event.payload)).toBe(true);
    }
    for (const [path, text] of Object.entries(files)) expect(readFileSync(join(workspace, path), "utf8")).toBe(text);

    // A terminal state that is not "done": nothing was verified, and the loop never crashed.
    const final = events[events.length - 1];
    expect(terminal.has(final.type)).toBe(true);
    expect(final.type, JSON.stringify(final.payload)).not.toBe("run.cancelled");
    if (final.type === "run.completed") {
      expect(final.payload.state).toBe("unverified");
      expect(final.payload.files_changed).toEqual([]);
    } else {
      expect(final.type).toBe("run.failed");
      // A model that never completes runs out of iterations, or (when the token cap cut its replies
      // inside a call) out of mistakes; never a malformed reply, a crash or a model failure.
      const allowed = cutWithoutCall.length > 0 ? ["ITERATION_LIMIT", "STALLED", "MISTAKE_LIMIT"] : ["ITERATION_LIMIT", "STALLED"];
      expect(allowed, JSON.stringify(final.payload)).toContain(final.payload.error.code);
    }
    expect(final.payload.error?.code).not.toBe("INTERNAL");
    expect(final.payload.error?.code).not.toBe("MODEL_FAILED");

    // The gateway's view agrees, and the model service (and the rest) stayed up.
    const status = await getJson(s, `/api/agent/status?id=${session}`);
    expect(status.status).toBe(200);
    expect(["unverified", "error"]).toContain(status.body.state);
    const health = await getJson(s, "/api/health");
    expect(health.status).toBe(200);
    expect(health.body.services.model, JSON.stringify(health.body)).toBe(true);
    expect(health.body.ok, JSON.stringify(health.body)).toBe(true);
  }, 120_000);
});
