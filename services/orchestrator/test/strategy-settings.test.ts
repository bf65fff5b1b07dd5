import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

const toolNames = (request: { tools: Array<{ name: string }> }) => request.tools.map((tool) => tool.name);

/**
 * The strategies that change what the model is told, over the real services (one scripted model
 * per scenario): loop_breaker, few_shot, auto_lint, the per-run code_map, and the edit format a
 * model's registry entry chose. Each is off unless the start (or the registry) sets it.
 */
describe.skipIf(skipReason !== "")(`strategies over the real services${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    const missingRead = { text: call.read("no-such-file.js") };
    const unclosed = { text: "<attempt_completion>\n<result>math.js defines add" };
    stack = await startStack([], {
      models: {
        loop: [missingRead, missingRead, missingRead, { text: call.complete("never reached") }],
        plain: [missingRead, missingRead, { text: call.complete("gave up: no-such-file.js does not exist") }],
        shots: [{ text: call.read("math.js") }, { text: call.complete("math.js defines add.") }],
        lint: [{ text: call.write("typed.ts", 'export const count: number = "three";') }, { text: call.complete("wrote typed.ts") }],
        whole: [{ text: call.read("math.js") }, { text: call.complete("read") }],
        malformed: [unclosed, unclosed, unclosed],
        evidence: [missingRead, { text: call.read("math.js") }, { text: call.complete("math.js defines add.") }],
        anyway: [{ text: call.read("math.js") }, { text: call.complete("math.js defines add.") }],
        explore: [missingRead, { text: call.read("math.js") }, { text: call.complete("math.js defines add.") }],
        anchored: [
          { text: "<list_dir>\n<path>.</path>\n</list_dir>" },
          { text: "<list_dir>\n<path>.</path>\n</list_dir>" },
          { text: call.read("math.js") },
          { text: "<replace_in_file>\n<path>math.js</path>\n<search>  return a - b;</search>\n<replace>  return a + b;</replace>\n</replace_in_file>" },
          { text: call.read("math.js") },
          { text: call.complete("add in math.js now adds.") },
        ],
        lines: [
          { text: call.read("math.js") },
          { text: "<replace_in_file>\n<path>math.js</path>\n<search>  return a * b;</search>\n<replace>  return b * a;</replace>\n</replace_in_file>" },
          { text: call.read("math.js") },
          { text: call.complete("multiply in math.js now reads b * a.") },
        ],
        follow: [
          { text: call.read("follow/price.test.js") },
          { text: call.read("follow/price.js") },
          { text: "<replace_in_file>\n<path>follow/price.js</path>\n<search>  return amount - rate;</search>\n<replace>  return amount * (1 + rate);</replace>\n</replace_in_file>" },
          { text: call.read("follow/price.js") },
          { text: call.complete("withTax in follow/price.js now adds the rate; price.test.js imports it.") },
        ],
        paths: [
          { text: call.write("notes/added.txt", "a note") },
          { text: call.read("notes/added.txt") },
          { text: call.read("math.js") },
          { text: call.complete("wrote notes/added.txt; math.js defines add.") },
        ],
      },
      modelFields: { whole: { editFormat: "whole-file" } },
      // A cold TypeScript checker on a loaded machine: the edit waits for it (the most the service allows).
      toolsEnv: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" },
    });
  }, 120_000);
  afterAll(async () => stack?.stop());

  async function run(model: string, task: string, extra: Record<string, unknown> = {}): Promise<{ session: string; end: AgentEvent; events: AgentEvent[] }> {
    const reply = await stack.command("start", { task, workspace: stack.workspace, model, ...extra });
    expect(reply).toMatchObject({ ok: true });
    const session = reply.result.session as string;
    const end = await stack.terminal(session, undefined, 120_000);
    return { session, end, events: stack.events.filter((event) => event.session === session) };
  }

  it("loop_breaker: the second identical failure gets a different instruction, the third ends the run; without it the same error repeats", async () => {
    const broken = await run("loop", "What does no-such-file.js export?", { experiment: { loop_breaker: true } });
    expect(broken.end.type).toBe("run.failed");
    expect(broken.end.payload).toMatchObject({ error: { code: "MISTAKE_LIMIT" } });
    expect(JSON.stringify(broken.end.payload)).toContain("The same call failed 3 times in a row");
    const requests = stack.modelRequests("loop");
    expect(requests.length).toBe(3);
    const afterFirst = requests[1].messages.at(-1)!.content;
    const afterSecond = requests[2].messages.at(-1)!.content;
    expect(afterFirst).toContain("No file at no-such-file.js");
    expect(afterSecond).toContain("LOOP: read_file with these same arguments has now failed twice the same way");
    expect(afterSecond).toContain("call list_dir on the parent folder");

    const plain = await run("plain", "What does no-such-file.js export?");
    const plainRequests = stack.modelRequests("plain");
    expect(plainRequests[2].messages.at(-1)!.content).not.toContain("LOOP:");
    expect(plainRequests[2].messages.at(-1)!.content).toContain("No file at no-such-file.js");
    expect(plain.events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { loop_breaker: false } });
  }, 180_000);

  it("loop_breaker: the same malformed call twice gets a well-formed example of that call to copy", async () => {
    const { end } = await run("malformed", "What does math.js define?", { experiment: { loop_breaker: true } });
    expect(end.payload).toMatchObject({ error: { code: "MISTAKE_LIMIT" } });
    const requests = stack.modelRequests("malformed");
    expect(requests.length).toBe(3);
    expect(requests[1].messages.at(-1)!.content).toContain("Your tool call could not be used");
    const second = requests[2].messages.at(-1)!.content;
    expect(second).toContain("LOOP: your last two replies had the same malformed call (attempt_completion:");
    expect(second).toContain("<attempt_completion>\n<result>");
    expect(second).toContain("</attempt_completion>");
  }, 180_000);

  it("few_shot: the compact tier's system contract gains one example call per offered tool, fixed across turns", async () => {
    const { events } = await run("shots", "What does math.js define?", { experiment: { prompt_tier: "compact", few_shot: true, code_map: true } });
    const [first, second] = stack.modelRequests("shots");
    const system = first.messages[0].content;
    expect(system).toContain("Examples of good calls, one per tool");
    for (const name of toolNames(first)) expect(system).toContain(`<${name}>`);
    // read_file names the workspace's file the task names (listed before the first turn), and
    // run_command its test command; the other values are placeholders, never an invented path a
    // model copies into a workspace without it.
    const examples = system.slice(system.indexOf("Examples of good calls"), system.indexOf("# Code map"));
    expect(examples).toContain("<read_file>\n<path>math.js</path>\n</read_file>");
    expect(examples).not.toContain("src/");
    // run_command names the workspace's test command (package.json scripts.test).
    expect(examples).toContain("<run_command>\n<command>npm test</command>");
    const real = ["<path>math.js</path>", "<command>npm test</command>"];
    const values = [...examples.matchAll(/<(\w+)>([^<\n]+)<\/\1>/g)].filter((match) => !real.includes(match[0])).map((match) => match[2]);
    for (const value of values) expect(value, examples).toMatch(/^(\.|[A-Z][A-Z_ .]*)$/);
    expect(second.messages[0].content).toBe(system);
    // code_map=on as a per-run setting (no AIDE_CODE_MAP_IN_PREFIX in this orchestrator's environment).
    expect(system).toContain("# Code map\n");
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { few_shot: true, code_map: true, prompt_tier: "compact" } });
  }, 180_000);

  it("completion_grammar=evidence: the grammar leaves attempt_completion out until the gate could accept one (here: after a successful read), while the prompt still offers it; off by default", async () => {
    const { end, events } = await run("evidence", "What does math.js define?", { experiment: { completion_grammar: "evidence" } });
    expect(end.type).toBe("run.completed");
    const requests = stack.modelRequests("evidence") as Array<{ tools: Array<{ name: string }>; grammar_exclude_tools?: string[] }>;
    expect(requests).toHaveLength(3);
    // No evidence at turn 1, nor after a read that failed; a successful read is what a question about the workspace needs.
    expect(requests[0].grammar_exclude_tools).toEqual(["attempt_completion"]);
    expect(requests[1].grammar_exclude_tools).toEqual(["attempt_completion"]);
    expect(requests[2].grammar_exclude_tools).toBeUndefined();
    for (const request of requests) expect(toolNames(request)).toContain("attempt_completion");
    const requested = events.filter((event) => event.type === "model.requested").map((event) => (event.payload as { grammar_excluded?: string[] }).grammar_excluded);
    expect(requested).toEqual([["attempt_completion"], ["attempt_completion"], undefined]);
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { completion_grammar: "evidence" } });

    const plain = await run("anyway", "What does math.js define?");
    expect((stack.modelRequests("anyway") as Array<{ grammar_exclude_tools?: string[] }>).map((request) => request.grammar_exclude_tools)).toEqual([undefined, undefined]);
    expect(plain.events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { completion_grammar: "off" } });
  }, 180_000);

  it("path_grammar: the grammar's paths are the workspace's files (read_file, replace_in_file) and those or a plain new path (write_file); a file the run created joins; off by default", async () => {
    const { end, events } = await run("paths", "Add notes/added.txt and tell me what math.js defines", { experiment: { path_grammar: true }, auto_approve: { edits: true, commands: [] } });
    expect(end.type, JSON.stringify(end.payload)).toBe("run.completed");
    type PathRequest = { tools: Array<{ name: string }>; grammar_paths?: { paths: string[]; tools: string[]; new_path_tools: string[]; directories: string[]; directory_tools: string[] } };
    const requests = stack.modelRequests("paths") as PathRequest[];
    // write, read it back (the evidence a change needs before done), read math.js, complete.
    expect(requests).toHaveLength(4);
    const first = requests[0].grammar_paths!;
    expect(first.paths).toContain("math.js");
    expect(first.paths).not.toContain("notes/added.txt");
    // Files only: no directory (`…/`) and no link (`…@`) entry of the listing.
    expect(first.paths.filter((path) => path.endsWith("/") || path.endsWith("@"))).toEqual([]);
    const offered = toolNames(requests[0]);
    expect(first.tools.every((tool) => offered.includes(tool))).toBe(true);
    expect(first.tools).toContain("read_file");
    expect(first.new_path_tools).toEqual(offered.includes("write_file") ? ["write_file"] : []);
    expect(requests[1].grammar_paths!.paths).toContain("notes/added.txt");
    // Folders: the root first, listed folders without their `/`; list_dir and search_files name one of them.
    expect(first.directories[0]).toBe(".");
    expect(first.directories.filter((folder) => folder.endsWith("/"))).toEqual([]);
    expect(first.directory_tools).toEqual(["list_dir", "search_files"].filter((tool) => offered.includes(tool)));
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { path_grammar: true } });
    // Off by default: the "anyway" run of the completion_grammar test above set nothing.
    expect((stack.modelRequests("anyway") as PathRequest[]).map((request) => request.grammar_paths)).toEqual([undefined, undefined]);
  }, 180_000);

  it("search_grammar, act_after_reads and lean_calls: two looks leave read_file alone, a read file leaves only the changing tools and the completion until a change applies; SEARCH is one of the read file's lines found once, and no replace_in_file before a read; only required parameters; off by default", async () => {
    const { end, events } = await run("anchored", "Fix add in math.js", { experiment: { search_grammar: true, act_after_reads: true, lean_calls: true }, auto_approve: { edits: true, commands: [] } });
    expect(end.type, JSON.stringify(end.payload)).toBe("run.completed");
    type AnchoredRequest = {
      tools: Array<{ name: string }>;
      grammar_exclude_tools?: string[];
      grammar_required_only?: boolean;
      grammar_edits?: { tool: string; files: Array<{ path: string; lines: string[] }> };
    };
    const requests = stack.modelRequests("anchored") as AnchoredRequest[];
    // list_dir, list_dir, read math.js, replace, read it back, complete.
    expect(requests).toHaveLength(6);
    const sorted = (names: readonly string[] | undefined) => [...(names ?? [])].sort();
    const allBut = (request: AnchoredRequest, kept: string[]) => sorted(toolNames(request).filter((name) => !kept.includes(name)));
    // Nothing read yet: no lines to spell, so no replace_in_file; one look is not two.
    for (const request of requests.slice(0, 2)) {
      expect(request.grammar_edits).toBeUndefined();
      expect(request.grammar_exclude_tools).toEqual(["replace_in_file"]);
    }
    // Two looks: read_file alone.
    expect(sorted(requests[2].grammar_exclude_tools)).toEqual(allBut(requests[2], ["read_file"]));
    // math.js read: its lines that occur once (not `}` or the blank line); only the changing tools and the completion.
    expect(requests[3].grammar_edits).toEqual({
      tool: "replace_in_file",
      files: [
        {
          path: "math.js",
          lines: ["// A tiny library with one bug: the agent's scripted session fixes it.", "export function add(a, b) {", "  return a - b;", "export function multiply(a, b) {", "  return a * b;"],
        },
      ],
    });
    expect(sorted(requests[3].grammar_exclude_tools)).toEqual(allBut(requests[3], ["write_file", "replace_in_file", "apply_patch", "attempt_completion"]));
    expect(requests[3].grammar_exclude_tools).toContain("run_command");
    // The edit applied: every tool is back, and the lines are the file's new ones.
    expect(requests[4].grammar_exclude_tools).toBeUndefined();
    expect(requests[4].grammar_edits!.files[0].lines).toContain("  return a + b;");
    expect(requests[4].grammar_edits!.files[0].lines).not.toContain("  return a - b;");
    // Read again since the change: the change stage once more.
    expect(sorted(requests[5].grammar_exclude_tools)).toEqual(allBut(requests[5], ["write_file", "replace_in_file", "apply_patch", "attempt_completion"]));
    expect(requests.map((request) => request.grammar_required_only)).toEqual(requests.map(() => true));
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { search_grammar: true, act_after_reads: true, lean_calls: true } });
    // Off by default: the "anyway" run set none of them.
    const plain = stack.modelRequests("anyway") as AnchoredRequest[];
    expect(plain.map((request) => [request.grammar_edits, request.grammar_exclude_tools, request.grammar_required_only])).toEqual([
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
  }, 180_000);

  it("line_edits: with search_grammar, the request asks for a one-line REPLACE once a file was read; without it, not", async () => {
    const { end, events } = await run("lines", "Swap the operands in multiply in math.js", { experiment: { search_grammar: true, line_edits: true }, auto_approve: { edits: true, commands: [] } });
    expect(end.type, JSON.stringify(end.payload)).toBe("run.completed");
    const requests = stack.modelRequests("lines") as Array<{ grammar_edits?: { tool: string; files: Array<{ path: string; lines: string[] }>; one_line?: boolean } }>;
    expect(requests).toHaveLength(4);
    expect(requests[0].grammar_edits).toBeUndefined();
    for (const request of requests.slice(1)) expect(request.grammar_edits).toMatchObject({ tool: "replace_in_file", one_line: true, files: [{ path: "math.js" }] });
    expect(requests[3].grammar_edits!.files[0].lines).toContain("  return b * a;");
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { search_grammar: true, line_edits: true } });
    // The anchored run above set search_grammar alone: no one_line.
    expect((stack.modelRequests("anchored") as Array<{ grammar_edits?: { one_line?: boolean } }>).every((request) => request.grammar_edits?.one_line === undefined)).toBe(true);
  }, 180_000);

  it("follow_imports: after a read of a test the reads stay open for the file it imports (the only path to spell); once read, the change stage; off by default", async () => {
    // A file of its own (the runs above change math.js): a test that imports the code it tests.
    mkdirSync(join(stack.workspace, "follow"), { recursive: true });
    writeFileSync(join(stack.workspace, "follow", "price.js"), "export function withTax(amount, rate) {\n  return amount - rate;\n}\n");
    writeFileSync(join(stack.workspace, "follow", "price.test.js"), 'import assert from "node:assert/strict";\nimport { withTax } from "./price.js";\n\nassert.equal(withTax(100, 0.5), 150);\n');
    const { end, events } = await run("follow", "Fix withTax in follow/price.js", {
      experiment: { act_after_reads: true, follow_imports: true, path_grammar: true, search_grammar: true },
      auto_approve: { edits: true, commands: [] },
    });
    expect(end.type, JSON.stringify(end.payload)).toBe("run.completed");
    type FollowRequest = { tools: Array<{ name: string }>; grammar_exclude_tools?: string[]; grammar_paths?: { paths: string[]; tools: string[] }; grammar_edits?: { files: Array<{ path: string }> } };
    const requests = stack.modelRequests("follow") as FollowRequest[];
    expect(requests).toHaveLength(5);
    const sorted = (names: readonly string[] | undefined) => [...(names ?? [])].sort();
    const allBut = (request: FollowRequest, kept: string[]) => sorted(toolNames(request).filter((name) => !kept.includes(name)));
    // Nothing read: every workspace file is a path to spell.
    expect(requests[0].grammar_paths!.paths).toEqual(expect.arrayContaining(["math.js", "follow/price.js", "follow/price.test.js"]));
    // price.test.js read, and it imports ./price.js: read_file alone, its path follow/price.js alone.
    expect(sorted(requests[1].grammar_exclude_tools)).toEqual(allBut(requests[1], ["read_file"]));
    expect(requests[1].grammar_paths!.paths).toEqual(["follow/price.js"]);
    // price.js read too: the change stage, both files' lines to spell (the latest read first), every path back.
    expect(sorted(requests[2].grammar_exclude_tools)).toEqual(allBut(requests[2], ["write_file", "replace_in_file", "apply_patch", "attempt_completion"]));
    expect(requests[2].grammar_edits!.files.map((file) => file.path)).toEqual(["follow/price.js", "follow/price.test.js"]);
    expect(requests[2].grammar_paths!.paths.length).toBeGreaterThan(1);
    // After the change and the read back: nothing left to follow (price.js imports nothing).
    expect(sorted(requests[4].grammar_exclude_tools)).toEqual(allBut(requests[4], ["write_file", "replace_in_file", "apply_patch", "attempt_completion"]));
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { act_after_reads: true, follow_imports: true } });
    // Off by default: the anchored run (act_after_reads alone) went to the change stage right after its one read.
    expect(stack.modelRequests("anchored").length).toBe(6);
    expect(events.filter((event) => event.type === "run.created").every((event) => (event.payload as { experiment: { follow_imports?: boolean } }).experiment.follow_imports === true)).toBe(true);
  }, 180_000);

  it("explore_first: until a read of the workspace succeeded the grammar offers only the reading tools (a failed read does not count); then every tool; off by default", async () => {
    const { end, events } = await run("explore", "What does math.js define?", { experiment: { explore_first: true } });
    expect(end.type, JSON.stringify(end.payload)).toBe("run.completed");
    type ExcludingRequest = { tools: Array<{ name: string }>; grammar_exclude_tools?: string[] };
    const requests = stack.modelRequests("explore") as ExcludingRequest[];
    expect(requests).toHaveLength(3);
    const reading = ["read_file", "list_dir", "search_files", "list_code_definitions", "code_map"];
    for (const request of requests.slice(0, 2)) {
      const offered = toolNames(request);
      // Everything offered that does not read the workspace is out of the grammar, the completion too.
      expect([...(request.grammar_exclude_tools ?? [])].sort()).toEqual(offered.filter((name) => !reading.includes(name)).sort());
      expect(request.grammar_exclude_tools).toContain("attempt_completion");
      expect(request.grammar_exclude_tools).toContain("write_file");
    }
    // The read of math.js succeeded: the third request's grammar offers every tool.
    expect(requests[2].grammar_exclude_tools).toBeUndefined();
    expect(events.find((event) => event.type === "model.requested")!.payload).toMatchObject({ grammar_excluded: expect.arrayContaining(["attempt_completion"]) });
    expect(events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { explore_first: true } });
    // Off by default: the "plain" run of the loop_breaker test set nothing.
    const plain = stack.modelRequests("plain") as ExcludingRequest[];
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.filter((request) => request.grammar_exclude_tools !== undefined)).toEqual([]);
  }, 180_000);

  it("auto_lint: an edit's new problems are restated to the model as an instruction of their own", async () => {
    const { events } = await run("lint", "Create typed.ts exporting a count", { experiment: { auto_lint: true }, auto_approve: { edits: true, commands: [] } });
    const written = events.find((event) => event.type === "tool.completed" && (event.payload as { tool: string }).tool === "write_file")!;
    const diagnostics = (written.payload as { metadata: { diagnostics?: { new_problems?: number } } }).metadata.diagnostics;
    expect(diagnostics?.new_problems, JSON.stringify(written.payload)).toBeGreaterThan(0);
    const last = stack.modelRequests("lint")[1].messages.at(-1)!.content;
    expect(last).toMatch(/auto_lint: your write_file introduced \d+ new problems? \(/);
    expect(last).toMatch(/typed\.ts:1:\d+ /);
  }, 180_000);

  it("the edit format a model's registry entry chose applies when the start sets none; the start's own setting wins", async () => {
    const chosen = await run("whole", "Fix the bug in math.js");
    const request = stack.modelRequests("whole")[0];
    expect(toolNames(request)).toContain("write_file");
    expect(toolNames(request)).not.toContain("replace_in_file");
    expect(chosen.events.find((event) => event.type === "run.created")!.payload).toMatchObject({ experiment: { edit_format: "whole-file", edit_format_source: "model" } });
    const models = await stack.command("start", { task: "x", workspace: stack.workspace, model: "whole", experiment: { edit_format: "search-replace" } });
    const session = models.result.session as string;
    await stack.terminal(session, undefined, 120_000).catch(() => undefined);
    const created = stack.events.find((event) => event.session === session && event.type === "run.created")!;
    expect(created.payload).toMatchObject({ experiment: { edit_format: "search-replace", edit_format_source: "setting" } });
  }, 180_000);
});
