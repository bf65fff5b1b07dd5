import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import type { ChatTool, ModelChatRequest } from "@aide/contracts";
import { sharedModelPath } from "../../../tests/helpers/service-process.js";
import { allTools } from "../../tools/src/tools/catalog.js";
import { describeTool } from "../../tools/src/framework/list-tools.js";
import { normalizeArguments } from "../../tools/src/framework/normalize-arguments.js";
import { requestGrammar } from "../src/request-grammar.js";
import { parseTextToolCalls } from "../src/tool-call-parse.js";

/**
 * The grammar against the validator, both built from the same schemas: every tool of the tools
 * service's real catalog (its zod schemas rendered to JSON Schema, the way the model sees them),
 * a grammar per tool, replies sampled from it by a real model (node-llama-cpp on the shipped
 * stories260K, hot temperature so the values wander), each reply parsed and its arguments run
 * through the tools service's own normalizeArguments (zod). Under the default grammar every
 * reply the model finished must validate. The old default (typed values, `grammar_schema` off)
 * is sampled the same way and must produce refused arguments: that is what the default grammar
 * gave SmolLM2 (`<limit>100000000000000</limit>`, replace_in_file with neither `diff` nor
 * `search`+`replace`), so the test can fail for the reason its name gives.
 */
const haveModel = existsSync(sharedModelPath);
const title = haveModel ? "grammar-constrained samples (stories260K) against the tools' validator" : `grammar validity — SKIPPED: no GGUF at ${sharedModelPath}`;

const tools = allTools({ ripgrep: false });
const catalog: ChatTool[] = tools.map(describeTool).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
const SEEDS = [1, 2, 3, 4, 5, 6];

interface Sampled {
  finished: number;
  cut: number;
  invalid: string[];
}

describe.skipIf(!haveModel)(title, () => {
  let llama: Llama;
  let model: LlamaModel;
  let context: LlamaContext;
  let sequence: LlamaContextSequence;

  beforeAll(async () => {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
    model = await llama.loadModel({ modelPath: sharedModelPath });
    context = await model.createContext({ contextSize: 1024, threads: 1 });
    sequence = context.getSequence();
  }, 120_000);

  afterAll(async () => {
    await context?.dispose();
    await model?.dispose();
  });

  async function sample(tool: ChatTool, settings: Pick<ModelChatRequest, "grammar_scope" | "grammar_schema">, grammarBudget = 200): Promise<Sampled> {
    const { LlamaCompletion } = await import("node-llama-cpp");
    const request = { request_id: "r", session: "s", messages: [{ role: "user", content: "x" }], tools: [tool], tool_choice: "required", stream: false, ...settings } as ModelChatRequest;
    const gbnf = requestGrammar({ grammar: true, maxOutputTokens: grammarBudget, thinking: false }, request);
    expect(gbnf, tool.name).toBeDefined();
    const grammar = await llama.createGrammar({ grammar: gbnf! });
    const own = tools.find((candidate) => candidate.name === tool.name)!;
    const result: Sampled = { finished: 0, cut: 0, invalid: [] };
    for (const seed of SEEDS) {
      await sequence.clearHistory();
      const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
      try {
        const reply = await completion.generateCompletionWithMeta(`Once upon a time the tool ${tool.name} was called:\n`, { grammar, maxTokens: 200, temperature: 1.2, seed });
        if (reply.metadata.stopReason === "maxTokens") {
          result.cut++;
          continue;
        }
        result.finished++;
        const parsed = parseTextToolCalls(reply.response, [tool]);
        if (parsed.errors.length > 0 || parsed.calls.length !== 1) {
          result.invalid.push(`${seed}: ${parsed.errors.join(", ")} ${JSON.stringify(reply.response.slice(0, 160))}`);
          continue;
        }
        const checked = normalizeArguments(own, parsed.calls[0].arguments);
        if (!checked.ok) result.invalid.push(`${seed}: ${checked.error} ${JSON.stringify(parsed.calls[0].arguments).slice(0, 200)}`);
      } finally {
        completion.dispose({ disposeSequence: false });
      }
    }
    return result;
  }

  it("under the default grammar, every reply for every tool of the real catalog is complete before max_tokens and a call the validator accepts", async () => {
    const report: string[] = [];
    let finished = 0;
    let cut = 0;
    for (const tool of catalog) {
      const sampled = await sample(tool, {});
      finished += sampled.finished;
      cut += sampled.cut;
      report.push(`${tool.name}: ${sampled.finished} finished, ${sampled.cut} cut`);
      console.info(report.at(-1));
      expect(sampled.invalid, tool.name).toEqual([]);
    }
    // The bounds (one-line values within their maxLength and the budget, bodies within what the
    // call's other parts leave) close every call within the 200 tokens: none runs to the cap.
    // (Before them, write_file, replace_in_file and apply_patch replies ran into the cap inside a body.)
    expect(cut, report.join("; ")).toBe(0);
    expect(finished, report.join("; ")).toBe(catalog.length * SEEDS.length);
  }, 600_000);

  it("a grammar for a larger budget than the generation's cap (bodies of thousands of characters) runs into the cap: what the bounds fix", async () => {
    // The grammar for a 4096-token reply sampled to 200 tokens: the bodies run past the cap.
    let cut = 0;
    for (const name of ["write_file", "replace_in_file", "apply_patch"]) cut += (await sample(catalog.find((tool) => tool.name === name)!, {}, 4096)).cut;
    expect(cut).toBeGreaterThan(0);
  }, 600_000);

  /**
   * Whether the grammar accepts exactly this text: each of its tokens (the shipped model's
   * tokenizer) must be allowed in turn and then the end. node-llama-cpp 3.21.1 exposes the state
   * publicly but the per-token check only on its bindings (what its own samplers call).
   */
  async function accepts(gbnf: string, text: string): Promise<boolean> {
    const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
    const grammar = await llama.createGrammar({ grammar: gbnf });
    const state = new LlamaGrammarEvaluationState({ model, grammar }) as unknown as { _state: unknown };
    const sampler = (
      llama as unknown as { _bindings: { AddonSampler: { canBeNextTokenForGrammarEvaluationState(s: unknown, t: number): boolean; acceptGrammarEvaluationStateToken(s: unknown, t: number): void } } }
    )._bindings.AddonSampler;
    for (const token of model.tokenize(text)) {
      if (!sampler.canBeNextTokenForGrammarEvaluationState(state._state, token)) return false;
      sampler.acceptGrammarEvaluationStateToken(state._state, token);
    }
    return sampler.canBeNextTokenForGrammarEvaluationState(state._state, model.tokens.eos!);
  }

  const grammarFor = (name: string, settings: Pick<ModelChatRequest, "grammar_scope" | "grammar_schema" | "grammar_paths" | "grammar_edits"> = {}, budget = 4096, pool: ChatTool[] = catalog) =>
    requestGrammar({ grammar: true, maxOutputTokens: budget, thinking: false }, {
      request_id: "r",
      session: "s",
      messages: [{ role: "user", content: "x" }],
      tools: [pool.find((tool) => tool.name === name)!],
      tool_choice: "required",
      stream: false,
      ...settings,
    } as ModelChatRequest)!;
  const old = { grammar_scope: "call", grammar_schema: false } as const;
  const call = (name: string, params: Record<string, string>) =>
    `<${name}>\n${Object.entries(params)
      .map(([key, value]) => `<${key}>${value}</${key}>\n`)
      .join("")}</${name}>`;
  const blocks = "\n<<<<<<< SEARCH\n  return a - b;\n=======\n  return a + b;\n>>>>>>> REPLACE\n";

  it("replace_in_file's argument sets are in the grammar: `diff`, or `search` with `replace`; never neither, a mix, or half a set", async () => {
    const tool = catalog.find((candidate) => candidate.name === "replace_in_file")!;
    expect((tool.parameters as { anyOf?: unknown[] }).anyOf).toHaveLength(2);
    const grammar = grammarFor("replace_in_file");
    const cases: [Record<string, string>, boolean][] = [
      [{ path: "src/sum.js", diff: blocks }, true],
      [{ path: "src/sum.js", search: "a - b", replace: "a + b" }, true],
      [{ path: "src/sum.js", search: "a - b", replace: "" }, true],
      [{ path: "src/sum.js" }, false],
      [{ path: "src/sum.js", search: "a - b" }, false],
      [{ path: "src/sum.js", diff: blocks, search: "a - b", replace: "a + b" }, false],
    ];
    const own = tools.find((candidate) => candidate.name === "replace_in_file")!;
    for (const [params, valid] of cases) {
      // The grammar and the validator agree on every case.
      expect(await accepts(grammar, call("replace_in_file", params)), JSON.stringify(params)).toBe(valid);
      expect(normalizeArguments(own, params).ok, JSON.stringify(params)).toBe(valid);
    }
    // The typed values (the old default) refuse SEARCH/REPLACE blocks: `<<` was not text.
    expect(await accepts(grammarFor("replace_in_file", old), call("replace_in_file", { path: "src/sum.js", diff: blocks }))).toBe(false);
  }, 120_000);

  it("bounds and bodies: integers within their range, bounded one-line strings, bodies that may hold any tag but their own close", async () => {
    expect(await accepts(grammarFor("read_file"), call("read_file", { path: "src/index.ts", limit: "2000" }))).toBe(true);
    expect(await accepts(grammarFor("read_file"), call("read_file", { path: "src/index.ts", limit: "100000000000000" }))).toBe(false);
    expect(await accepts(grammarFor("read_file", old), call("read_file", { path: "src/index.ts", limit: "100000000000000" }))).toBe(true);
    expect(await accepts(grammarFor("read_file"), call("read_file", { path: "" }))).toBe(false);
    expect(await accepts(grammarFor("read_file"), call("read_file", { path: "src/a.ts\nand then some prose" }))).toBe(false);
    // A one-line value has at most 255 characters (and at most its maxLength: a path 160), so it closes within the reply's token budget.
    expect(await accepts(grammarFor("read_file"), call("read_file", { path: "a/".repeat(80) }))).toBe(true);
    expect(await accepts(grammarFor("read_file"), call("read_file", { path: "a/".repeat(80) + "b" }))).toBe(false);
    expect(await accepts(grammarFor("search_files"), call("search_files", { pattern: "x".repeat(121) }))).toBe(false);
    expect(await accepts(grammarFor("run_command"), call("run_command", { command: `echo ${"x".repeat(200)}` }))).toBe(true);
    expect(await accepts(grammarFor("run_command"), call("run_command", { command: `echo ${"x".repeat(300)}` }))).toBe(false);
    expect(await accepts(grammarFor("process_poll"), call("process_poll", { id: "p".repeat(32) }))).toBe(true);
    expect(await accepts(grammarFor("process_poll"), call("process_poll", { id: "p".repeat(33) }))).toBe(false);
    const html = "\n<div><p>hi</p></div>\nif (a < b && c <<= 2) {}\n</conten\n";
    expect(await accepts(grammarFor("write_file"), call("write_file", { path: "index.html", content: html }))).toBe(true);
    expect(await accepts(grammarFor("write_file"), call("write_file", { path: "index.html", content: "a</content>b" }))).toBe(false);
    // A body parameter whose name has a '-' (an MCP tool's): its closing tag's '-' is escaped in the character classes llama.cpp reads.
    const mcp: ChatTool = { name: "notes_write", description: "", parameters: { type: "object", properties: { "file-text": { type: "string", maxLength: 100_000 } }, required: ["file-text"] } };
    const mcpGrammar = requestGrammar({ grammar: true, maxOutputTokens: 512, thinking: false }, {
      request_id: "r",
      session: "s",
      messages: [{ role: "user", content: "x" }],
      tools: [mcp],
      tool_choice: "required",
      stream: false,
    } as ModelChatRequest)!;
    expect(await accepts(mcpGrammar, call("notes_write", { "file-text": "a-b </file-tex- </file_text>" }))).toBe(true);
    expect(await accepts(mcpGrammar, call("notes_write", { "file-text": "a</file-text>b" }))).toBe(false);
    // Within a small reply budget the strings shrink so the whole call fits it (a token is at least a character):
    // 256 tokens leave a completion's result under 200 characters.
    const completion: ChatTool = { name: "attempt_completion", description: "", parameters: { type: "object", properties: { result: { type: "string" } }, required: ["result"] } };
    expect(await accepts(grammarFor("attempt_completion", {}, 256, [completion]), call("attempt_completion", { result: "r".repeat(150) }))).toBe(true);
    expect(await accepts(grammarFor("attempt_completion", {}, 256, [completion]), call("attempt_completion", { result: "r".repeat(200) }))).toBe(false);
    expect(await accepts(grammarFor("run_command", {}, 256), call("run_command", { command: `echo ${"x".repeat(150)}` }))).toBe(false);
    // A body within a 200-token reply: 200 − 66 (tags, line breaks) − 1 (the end) = 133 characters, the path's share 66, the content the other 67.
    expect(await accepts(grammarFor("write_file", {}, 200), call("write_file", { path: "a.txt", content: "x".repeat(67) }))).toBe(true);
    expect(await accepts(grammarFor("write_file", {}, 200), call("write_file", { path: "a.txt", content: "x".repeat(68) }))).toBe(false);
    expect(await accepts(grammarFor("write_file", {}, 200), call("write_file", { path: "a.txt", content: "<p>a < b</p>\n<<<<<<< x </conten" }))).toBe(true);
    // An optional parameter whose `pattern` the grammar does not translate is left out (git_diff's ref).
    expect(await accepts(grammarFor("git_diff"), call("git_diff", { ref: "HEAD" }))).toBe(false);
    expect(await accepts(grammarFor("git_diff"), call("git_diff", { staged: "true" }))).toBe(true);
  }, 120_000);

  /**
   * The completion_grammar strategy's half in the model service: a request that names
   * attempt_completion in `grammar_exclude_tools` keeps it in the prompt's tools but the grammar
   * cannot produce it. Sampled on the shipped model from a catalog of read_file and
   * attempt_completion (the orchestrator's own schema), the way a run before any evidence asks;
   * the same request without the exclusion (after a successful read, when the gate could accept)
   * does produce completions, so the test can fail for the reason its name gives.
   */
  it("completion_grammar: with attempt_completion excluded no sampled reply is a completion; without the exclusion some are", async () => {
    const { LlamaCompletion } = await import("node-llama-cpp");
    const completionTool: ChatTool = {
      name: "attempt_completion",
      description: "Finish the task.",
      parameters: { type: "object", properties: { result: { type: "string", description: "What was done" } }, required: ["result"], additionalProperties: false },
    };
    const pool = [catalog.find((tool) => tool.name === "read_file")!, completionTool];
    const names = async (exclude: string[] | undefined): Promise<string[]> => {
      const request = {
        request_id: "r",
        session: "s",
        messages: [{ role: "user", content: "x" }],
        tools: pool,
        tool_choice: "required",
        stream: false,
        ...(exclude ? { grammar_exclude_tools: exclude } : {}),
      } as ModelChatRequest;
      const gbnf = requestGrammar({ grammar: true, maxOutputTokens: 200, thinking: false }, request)!;
      const grammar = await llama.createGrammar({ grammar: gbnf });
      const seen: string[] = [];
      for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
        await sequence.clearHistory();
        const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
        try {
          const reply = await completion.generateCompletionWithMeta("Once upon a time the agent finished the task:\n", { grammar, maxTokens: 200, temperature: 1.2, seed });
          const parsed = parseTextToolCalls(reply.response, pool);
          expect(parsed.errors, reply.response).toEqual([]);
          seen.push(...parsed.calls.map((parsedCall) => parsedCall.name));
        } finally {
          completion.dispose({ disposeSequence: false });
        }
      }
      return seen;
    };
    const excluded = await names(["attempt_completion"]);
    expect(excluded).toHaveLength(10);
    expect(excluded.filter((name) => name === "attempt_completion")).toEqual([]);
    const offered = await names(undefined);
    expect(offered.filter((name) => name === "attempt_completion").length).toBeGreaterThan(0);
    // Excluding every tool would leave the grammar none: the exclusion is then ignored.
    const all = requestGrammar({ grammar: true, maxOutputTokens: 200, thinking: false }, {
      request_id: "r",
      session: "s",
      messages: [{ role: "user", content: "x" }],
      tools: [completionTool],
      tool_choice: "required",
      stream: false,
      grammar_exclude_tools: ["attempt_completion"],
    } as ModelChatRequest);
    expect(all).toContain('"<attempt_completion>"');
  }, 300_000);

  /**
   * path_grammar: a read or an edit's path is one of the workspace's files, a new file's path one
   * of them or a plain relative path. Checked token by token on the real tokenizer, and by
   * sampling: every sampled read names a listed file, while without the choices the same samples
   * name other text (so the test can fail for the reason its name gives).
   */
  it("path_grammar: read_file and replace_in_file name only listed files; write_file a listed file or a plain relative path; without it the paths wander", async () => {
    const { LlamaCompletion } = await import("node-llama-cpp");
    const choices = ["src/math.js", "test/math.test.js", "README.md", "notes with space.txt"];
    const grammarPaths = { paths: choices, tools: ["read_file", "replace_in_file"], new_path_tools: ["write_file"], directories: [], directory_tools: [] };
    const pathGrammar = (name: string, withPaths = true, budget = 4096) => grammarFor(name, withPaths ? { grammar_paths: grammarPaths } : {}, budget);
    const read = pathGrammar("read_file");
    expect(await accepts(read, call("read_file", { path: "src/math.js" }))).toBe(true);
    expect(await accepts(read, call("read_file", { path: "README.md" }))).toBe(true);
    for (const path of ["# ", "- ", "(", "src/other.js", "src/math.jsx"]) expect(await accepts(read, call("read_file", { path })), path).toBe(false);
    // A choice the protocol's text could not carry back unchanged (a space here) is left out.
    expect(await accepts(read, call("read_file", { path: "notes with space.txt" }))).toBe(false);
    expect(await accepts(pathGrammar("replace_in_file"), call("replace_in_file", { path: "src/math.js", diff: blocks }))).toBe(true);
    expect(await accepts(pathGrammar("replace_in_file"), call("replace_in_file", { path: "# ", diff: blocks }))).toBe(false);
    const write = pathGrammar("write_file");
    for (const path of ["src/math.js", "notes/added.txt", "lib_2/x-y.py"]) expect(await accepts(write, call("write_file", { path, content: "x" })), path).toBe(true);
    for (const path of ["- ", "# ", ".hidden", "/etc/passwd", "a b.txt"]) expect(await accepts(write, call("write_file", { path, content: "x" })), path).toBe(false);
    const folderGrammar = grammarFor("list_dir", { grammar_paths: { ...grammarPaths, directories: [".", "src", "test"], directory_tools: ["list_dir"] } });
    for (const path of [".", "src", "test"]) expect(await accepts(folderGrammar, call("list_dir", { path })), path).toBe(true);
    for (const path of ["# ", "#", "|", "src/math.js", "lib"]) expect(await accepts(folderGrammar, call("list_dir", { path })), path).toBe(false);
    // Without the strategy the same spellings pass the grammar (the tools service then refuses or creates them).
    expect(await accepts(pathGrammar("read_file", false), call("read_file", { path: "# " }))).toBe(true);

    const sampledPaths = async (gbnf: string): Promise<string[]> => {
      const grammar = await llama.createGrammar({ grammar: gbnf });
      const tool = [catalog.find((candidate) => candidate.name === "read_file")!];
      const paths: string[] = [];
      for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
        await sequence.clearHistory();
        const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
        try {
          const reply = await completion.generateCompletionWithMeta("Once upon a time the agent read a file:\n", { grammar, maxTokens: 200, temperature: 1.2, seed });
          const parsed = parseTextToolCalls(reply.response, tool);
          if (parsed.calls.length === 1) paths.push(String(parsed.calls[0].arguments.path));
        } finally {
          completion.dispose({ disposeSequence: false });
        }
      }
      return paths;
    };
    const constrained = await sampledPaths(pathGrammar("read_file", true, 200));
    expect(constrained.length).toBeGreaterThan(0);
    expect(constrained.filter((path) => !choices.includes(path))).toEqual([]);
    const free = await sampledPaths(pathGrammar("read_file", false, 200));
    expect(free.filter((path) => !choices.includes(path)).length, JSON.stringify(free)).toBeGreaterThan(0);
  }, 300_000);

  /** replace_in_file replies sampled under `gbnf` (stories260K, temperature 1.2, one per seed), each parsed to exactly one call. */
  async function sampledEdits(gbnf: string, seeds: number[]): Promise<Array<{ response: string; args: Record<string, string> }>> {
    const { LlamaCompletion } = await import("node-llama-cpp");
    const llamaGrammar = await llama.createGrammar({ grammar: gbnf });
    const tool = [catalog.find((candidate) => candidate.name === "replace_in_file")!];
    const sampled: Array<{ response: string; args: Record<string, string> }> = [];
    for (const seed of seeds) {
      await sequence.clearHistory();
      const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
      try {
        const reply = await completion.generateCompletionWithMeta("Once upon a time the agent changed a line:\n", { grammar: llamaGrammar, maxTokens: 200, temperature: 1.2, seed });
        const parsed = parseTextToolCalls(reply.response, tool);
        expect(parsed.errors, reply.response).toEqual([]);
        sampled.push({ response: reply.response, args: parsed.calls[0].arguments as Record<string, string> });
      } finally {
        completion.dispose({ disposeSequence: false });
      }
    }
    return sampled;
  }

  it("search_grammar: replace_in_file's path and SEARCH text are a read file and one of its lines, in the search/replace form only; sampled calls always name one", async () => {
    const files = [
      { path: "src/cart.js", lines: ["export function total(items) {", "    total += item.price;", "  return total;"] },
      { path: "test/cart.test.js", lines: ['import { total } from "../src/cart.js";', "assert.equal(total([{ price: 2, quantity: 3 }]), 6);"] },
    ];
    const edits = { tool: "replace_in_file", files };
    const grammar = grammarFor("replace_in_file", { grammar_edits: edits });
    expect(await accepts(grammar, call("replace_in_file", { path: "src/cart.js", search: "    total += item.price;", replace: "    total += item.price * item.quantity;" }))).toBe(true);
    expect(await accepts(grammar, call("replace_in_file", { path: "test/cart.test.js", search: 'import { total } from "../src/cart.js";', replace: "" }))).toBe(true);
    // A line of the other file, a line not listed, a part of a line, the other argument set: none can be spelled.
    expect(await accepts(grammar, call("replace_in_file", { path: "src/cart.js", search: "  return total;", replace: "x" }))).toBe(true);
    expect(await accepts(grammar, call("replace_in_file", { path: "src/cart.js", search: 'import { total } from "../src/cart.js";', replace: "x" }))).toBe(false);
    expect(await accepts(grammar, call("replace_in_file", { path: "src/cart.js", search: "  let total = 0;", replace: "x" }))).toBe(false);
    expect(await accepts(grammar, call("replace_in_file", { path: "src/cart.js", search: "total += item.price;", replace: "x" }))).toBe(false);
    expect(await accepts(grammar, call("replace_in_file", { path: "src/other.js", search: "  return total;", replace: "x" }))).toBe(false);
    expect(await accepts(grammar, call("replace_in_file", { path: "src/cart.js", diff: blocks }))).toBe(false);
    // Nothing left to spell (a path with a space, a blank line): the tool keeps its own rules.
    const none = grammarFor("replace_in_file", {
      grammar_edits: {
        tool: "replace_in_file",
        files: [
          { path: "two words.js", lines: ["a"] },
          { path: "src/a.js", lines: ["   "] },
        ],
      },
    });
    expect(await accepts(none, call("replace_in_file", { path: "src/sum.js", diff: blocks }))).toBe(true);
    // Another tool's grammar is not touched.
    expect(await accepts(grammarFor("read_file", { grammar_edits: edits }), call("read_file", { path: "anything.txt" }))).toBe(true);

    const spelled = (await sampledEdits(grammarFor("replace_in_file", { grammar_edits: edits }, 200), [1, 2, 3, 4, 5, 6])).map(({ args }) => `${args.path}|${args.search}`);
    const allowed = files.flatMap((file) => file.lines.map((line) => `${file.path}|${line}`));
    expect(spelled.filter((pair) => !allowed.includes(pair))).toEqual([]);
  }, 300_000);

  it("line_edits: REPLACE is one line that starts with the chosen line's own indent, is not that line, and cannot close its own tag early; sampled replies always parse to one", async () => {
    const files = [{ path: "src/range.js", lines: ["export function range(n) {", "  for (let i = 0; i <= n; i++) out.push(i);", "\treturn out;"] }];
    const grammar = grammarFor("replace_in_file", { grammar_edits: { tool: "replace_in_file", files, one_line: true } });
    const edit = (search: string, replace: string) => call("replace_in_file", { path: "src/range.js", search, replace });
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "  for (let i = 0; i < n; i++) out.push(i);"))).toBe(true);
    expect(await accepts(grammar, edit("\treturn out;", "\treturn out.slice();"))).toBe(true);
    expect(await accepts(grammar, edit("export function range(n) {", "export function range(n = 0) {"))).toBe(true);
    // Another indent, a second line, a line break, a closing tag inside: none can be spelled.
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "for (let i = 0; i < n; i++) out.push(i);"))).toBe(false);
    expect(await accepts(grammar, edit("\treturn out;", "  return out;"))).toBe(false);
    expect(await accepts(grammar, edit("export function range(n) {", "export function range(n) {\n  const out = [];"))).toBe(false);
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "  </path>"))).toBe(false);
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "  for (let i = 0; i </= n; i++) out.push(i);"))).toBe(false);
    // Not the line itself (the tools service refuses a REPLACE equal to SEARCH), but its start, or more than it.
    for (const line of files[0].lines) expect(await accepts(grammar, edit(line, line)), line).toBe(false);
    expect(await accepts(grammar, edit("export function range(n) {", "export function range(n) { // n >= 0"))).toBe(true);
    expect(await accepts(grammar, edit("export function range(n) {", "export function range(n)"))).toBe(true);
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "  for (let i = 0; i <"))).toBe(true);
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "  for (let i = 0; i << n; i++) out.push(i);"))).toBe(true);
    expect(await accepts(grammar, edit("  for (let i = 0; i <= n; i++) out.push(i);", "  "))).toBe(true);
    // Without it, the same grammar takes a body of several lines.
    expect(
      await accepts(grammarFor("replace_in_file", { grammar_edits: { tool: "replace_in_file", files } }), edit("export function range(n) {", "export function range(n) {\n  const out = [];")),
    ).toBe(true);

    for (const { response, args } of await sampledEdits(grammarFor("replace_in_file", { grammar_edits: { tool: "replace_in_file", files, one_line: true } }, 200), [1, 2, 3, 4])) {
      expect(files[0].lines, response).toContain(args.search);
      expect(args.replace, response).not.toMatch(/[\r\n]/);
      expect(args.replace.startsWith(/^[ \t]*/.exec(args.search)![0]), response).toBe(true);
      expect(args.replace, response).not.toBe(args.search);
    }
  }, 300_000);

  it("the old default (typed values, no schema rules) lets refused arguments through: the failure this grammar fixes", async () => {
    const invalid: string[] = [];
    for (const name of ["read_file", "list_dir", "replace_in_file", "process_start"]) {
      const sampled = await sample(catalog.find((tool) => tool.name === name)!, { grammar_scope: "call", grammar_schema: false });
      invalid.push(...sampled.invalid.map((line) => `${name} ${line}`));
    }
    expect(invalid.length, invalid.join("\n")).toBeGreaterThan(0);
  }, 600_000);
});
