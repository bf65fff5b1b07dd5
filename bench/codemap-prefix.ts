/**
 * bench:codemap-prefix — does a code map in the first turn's stable prefix break the
 * local model's KV-cache reuse on later turns? Real processes: nats-server, the tools service
 * (its `code_map` and `read_file` answer over the bus) and the model service with the shipped
 * stories260K GGUF through node-llama-cpp (2,048-token window). The prompts are the
 * orchestrator's own: its compact-tier system prompt and `buildContext`, with the map the
 * orchestrator asks for under AIDE_CODE_MAP_IN_PREFIX=1 (budget `codeMapBudgetTokens` of the
 * window's fit) or without it. Three turns per arm in one model session each: the model's own
 * greedy reply is appended, then a real read_file result, as the loop does. Per turn: prompt
 * tokens, and prompt tokens the model service evaluated (the rest came from the KV cache).
 * The anchor is the arm without the map: later turns should evaluate the same number of tokens.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { startNatsServer, waitForService } from "@aide/runtime";
import { ModelChatReplySchema, type ChatMessage } from "@aide/contracts";
import { buildContext, codeMapBlock, codeMapBudgetTokens, modelFit, selectTools, systemPrompt, wrapToolResult } from "@aide/orchestrator";
import { realCatalog } from "./lib/prompt-scenarios.js";
import { repoRoot, writeBenchResult } from "./lib/results.js";

const modelPath = process.env.AIDE_TEST_MODEL ?? join(repoRoot, "..", "shared", "models", "stories260K.gguf");
const WINDOW = 2048;
const TURNS = 3;
const task = "Fix the bug in src/geometry.ts so that distance() is right, then check it.";

const project: Record<string, string> = {
  "src/geometry.ts": "export interface Point {\n  x: number;\n  y: number;\n}\n\nexport function distance(a: Point, b: Point): number {\n  return Math.hypot(a.x - b.x, a.y + b.y);\n}\n",
  "src/shapes.ts":
    'import { distance, type Point } from "./geometry.js";\n\nexport class Circle {\n  constructor(readonly center: Point, readonly radius: number) {}\n  contains(p: Point): boolean {\n    return distance(this.center, p) <= this.radius;\n  }\n}\n',
  "src/index.ts": 'export { Circle } from "./shapes.js";\nexport { distance } from "./geometry.js";\n',
  "tools/report.py":
    'from dataclasses import dataclass\n\n\n@dataclass\nclass Row:\n    name: str\n    value: float\n\n\ndef render(rows: list[Row]) -> str:\n    return "\\n".join(f"{r.name}: {r.value}" for r in rows)\n',
};
/** The file each turn's tool result reads. */
const reads = ["src/geometry.ts", "src/shapes.ts", "src/index.ts"];

async function startService(name: string, url: string, creds: string, env: Record<string, string>, pinger: NatsConnection): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(repoRoot, "services", name, "dist", "main.js")], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", AIDE_NATS_URL: url, AIDE_NATS_CREDS: creds, AIDE_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitForService(pinger, name, { timeoutMs: 30_000, stillStarting: () => (child.exitCode !== null ? `exited with ${child.exitCode}` : undefined) });
  return child;
}

let counter = 0;
async function request(client: NatsConnection, subject: string, body: unknown): Promise<any> {
  const reply = await client.request(subject, new TextEncoder().encode(JSON.stringify(body)), { timeout: 180_000 });
  return JSON.parse(new TextDecoder().decode(reply.data));
}

async function tool(client: NatsConnection, workspace: string, name: string, args: Record<string, unknown>): Promise<{ output: string; is_error: boolean; metadata: Record<string, unknown> }> {
  const reply = await request(client, "agent.tools.exec", { session: "bench", workspace, call: { id: `t${++counter}`, name, arguments: args } });
  if (reply.ok === false) throw new Error(`${name}: ${reply.error.code} ${reply.error.message}`);
  return reply.result;
}

interface Turn {
  prompt_tokens: number;
  evaluated_prompt_tokens: number;
  reused_tokens: number;
  system_chars: number;
}

async function session(client: NatsConnection, workspace: string, map: string, arm: string): Promise<Turn[]> {
  const now = new Date("2026-12-01T09:00:00Z");
  const tools = selectTools(task, realCatalog(), "act", "compact");
  const system = systemPrompt({ mode: "act", tools, workspace, now, tier: "compact" });
  const fit = modelFit(120_000, undefined, WINDOW);
  const transcript: ChatMessage[] = [{ role: "user", content: task }];
  const turns: Turn[] = [];
  for (let turn = 0; turn < TURNS; turn += 1) {
    const built = buildContext({ system, memories: [], messages: transcript, budgetChars: fit.budgetChars, environment: { workspace, mode: "act", now }, strategyBlocks: codeMapBlock(map) });
    const raw = await request(client, "agent.model.chat", {
      request_id: `r${++counter}`,
      session: `prefix-${arm}-${process.pid}`,
      model: "stories",
      messages: built.messages,
      tools: [],
      stream: false,
      max_tokens: 24,
      temperature: 0,
    });
    const reply = ModelChatReplySchema.parse(raw);
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    const usage = reply.result.usage;
    const evaluated = usage.evaluated_prompt_tokens ?? usage.prompt_tokens;
    turns.push({ prompt_tokens: usage.prompt_tokens, evaluated_prompt_tokens: evaluated, reused_tokens: usage.prompt_tokens - evaluated, system_chars: built.messages[0].content.length });
    const read = await tool(client, workspace, "read_file", { path: reads[turn] });
    transcript.push(
      { role: "assistant", content: reply.result.text },
      { role: "user", content: wrapToolResult({ call_id: `c${turn}`, tool: "read_file", output: read.output, is_error: read.is_error }) },
    );
  }
  return turns;
}

async function main(): Promise<void> {
  if (!existsSync(modelPath)) {
    process.stderr.write(`bench:codemap-prefix skipped: no model at ${modelPath}\n`);
    return;
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-prefix-")));
  const workspace = join(dir, "ws");
  for (const [path, text] of Object.entries(project)) {
    mkdirSync(join(workspace, path, ".."), { recursive: true });
    writeFileSync(join(workspace, path), text);
  }
  writeFileSync(join(dir, "models.json"), JSON.stringify({ default: "stories", models: [{ id: "stories", provider: "llama", file: modelPath, contextBudget: WINDOW, maxOutputTokens: 64 }] }));
  const server = await startNatsServer({ runDir: join(dir, "bus"), extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } } });
  const client = await connect({ servers: server.url, user: "tester", pass: server.credentials.tester.password, inboxPrefix: server.credentials.tester.inbox_prefix });
  const children: ChildProcess[] = [];
  try {
    children.push(await startService("model", server.url, server.credentialFiles.model, { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: join(dir, "home") }, client));
    children.push(await startService("tools", server.url, server.credentialFiles.tools, { AIDE_WORKSPACE_ROOTS: dir, AIDE_HOME: join(dir, "home") }, client));
    const budget = codeMapBudgetTokens(modelFit(120_000, undefined, WINDOW));
    const mapResult = await tool(client, workspace, "code_map", { budget_tokens: budget });
    if (mapResult.is_error) throw new Error(`code_map: ${mapResult.output}`);
    // Off first, then on, then off again: the arms share the loaded model, each in its own session.
    const off = await session(client, workspace, "", "off");
    const on = await session(client, workspace, mapResult.output, "on");
    const later = (turns: Turn[]) => turns.slice(1).map((turn) => turn.evaluated_prompt_tokens);
    const figures = {
      model: `${modelPath.split("/").pop()} (node-llama-cpp, ${WINDOW}-token window)`,
      turns: TURNS,
      map_budget_tokens: budget,
      map_tokens_estimate: mapResult.metadata["map_tokens"],
      map_chars: mapResult.output.length,
      map_files: mapResult.metadata["map_files"],
      map_off: off,
      map_on: on,
      first_turn_extra_prompt_tokens: on[0].prompt_tokens - off[0].prompt_tokens,
      later_turns_evaluated_off: later(off),
      later_turns_evaluated_on: later(on),
      later_turns_evaluated_difference: later(on).map((value, index) => value - later(off)[index]),
      kv_reuse_kept: on.slice(1).every((turn, index) => turn.reused_tokens >= on[index].prompt_tokens - 2),
      note: "reused = prompt tokens the model service did not evaluate again (the KV cache held them); kv_reuse_kept: every later turn with the map reused at least the whole previous prompt but for the turn's boundary token(s)",
    };
    const path = writeBenchResult("codemap-prefix", figures);
    process.stdout.write(`map ${figures.map_chars} chars (budget ${budget} tokens) in the prefix: turn 1 +${figures.first_turn_extra_prompt_tokens} prompt tokens\n`);
    for (const [name, turns] of [
      ["off", off],
      ["on", on],
    ] as const)
      process.stdout.write(`map ${name}: ${turns.map((turn) => `${turn.evaluated_prompt_tokens}/${turn.prompt_tokens}`).join("  ")} (evaluated/prompt per turn)\n`);
    process.stdout.write(`later turns evaluated, on − off: ${figures.later_turns_evaluated_difference.join(", ")}; KV reuse kept: ${figures.kv_reuse_kept}\n${path}\n`);
    if (!figures.kv_reuse_kept) process.exitCode = 1;
  } finally {
    await client.close();
    for (const child of children) child.kill("SIGTERM");
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
