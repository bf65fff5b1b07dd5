import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();

/** The eval task py-default-port's project: the port is computed in settings.py, named nowhere else. */
const settings = 'import os\n\nBASE_PORT = 8400\nOFFSET = 21\n\n\ndef port():\n    return int(os.environ.get("APP_PORT", BASE_PORT + OFFSET))\n';
const server =
  'from http.server import HTTPServer, SimpleHTTPRequestHandler\n\nimport settings\n\n\ndef serve():\n    HTTPServer(("127.0.0.1", settings.port()), SimpleHTTPRequestHandler).serve_forever()\n';
const task = "On which port does the server in this project listen when nothing is configured? Answer with the number.";
const madeUp = "Port is 8080 by default if $SOME_PORT is not set";
const real = "8421: settings.py returns APP_PORT when set, else BASE_PORT 8400 + OFFSET 21.";

/** What Qwen2.5-Coder-1.5B did: echo a variable it invented (empty, exit 0), then answer from nothing. */
const invents = () => [{ text: call.run("echo $SOME_PORT") }, { text: call.complete(madeUp) }, { text: call.complete(madeUp) }, { text: call.complete(madeUp) }];
/** Told to read the code after the first made-up answer, it does, and answers from it. */
const recovers = () => [{ text: call.run("echo $SOME_PORT") }, { text: call.complete(madeUp) }, { text: call.read("settings.py") }, { text: call.complete(real) }];
const reads = () => [{ text: call.read("server.py") }, { text: call.read("settings.py") }, { text: call.complete(real) }];
/** The project instructions (trusted for the run) name the development port; the model lists the folder and answers from them. */
const fromInstructions = "In development the server runs with APP_PORT=9100.";
const instructed = () => [
  { text: `<list_dir>\n<path>.</path>\n</list_dir>` },
  { text: call.complete(fromInstructions) },
  { text: call.complete(fromInstructions) },
  { text: call.complete(fromInstructions) },
];

/**
 * A question about the workspace answered with names and numbers nothing of the run shows is not
 * done: a successful command is not evidence for an answer. Over the real services.
 */
describe.skipIf(skipReason !== "")(`an answer's names and numbers must come from what the run read or ran${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.complete("unused") }], { contextBudget: 32_768, models: { invents: invents(), recovers: recovers(), reads: reads(), instructed: instructed() } });
    mkdirSync(stack.workspace, { recursive: true });
    writeFileSync(join(stack.workspace, "settings.py"), settings);
    writeFileSync(join(stack.workspace, "server.py"), server);
  }, 120_000);
  afterAll(async () => stack?.stop());

  async function run(model: string, question = task) {
    const started = await stack.command("start", { allow_concurrent: true, task: question, workspace: stack.workspace, model, auto_approve: { all: true }, trust_instructions: true });
    const session = started.result.session as string;
    const end = await stack.terminal(session, undefined, 20_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(stack.events.filter((e) => e.session === session).map((e) => [e.type, e.payload]))}`);
    });
    const of = (type: string) => stack.events.filter((e) => e.session === session && e.type === type);
    return { session, end, of };
  }

  it('`echo $SOME_PORT` (exit 0, empty) then "8080 … $SOME_PORT": rejected naming both, then unverified, never done', async () => {
    const { end, of } = await run("invents");
    expect(
      of("tool.completed")
        .map((e) => e.payload)
        .filter((payload) => (payload as { tool: string }).tool !== "attempt_completion"),
    ).toEqual([expect.objectContaining({ tool: "run_command", is_error: false })]);
    const rejections = of("completion.rejected").map((e) => e.payload as { missing: string[]; instruction: string; claims?: Array<{ kind: string; quote: string }> });
    expect(rejections, JSON.stringify(end.payload)).toHaveLength(2);
    expect(rejections[0].missing).toEqual(["answer"]);
    expect(rejections[0].claims?.map((claim) => [claim.kind, claim.quote])).toEqual([
      ["answer", "SOME_PORT"],
      ["answer", "8080"],
    ]);
    expect(rejections[0].instruction).toContain("read_file");
    expect(end.type).toBe("run.completed");
    expect(end.payload, JSON.stringify(end.payload)).toMatchObject({ state: "unverified", result: expect.stringContaining("INCOMPLETE (unverified)") });
    expect(of("completion.unverified")[0]?.payload).toMatchObject({ missing: ["answer"], claims: expect.arrayContaining([expect.objectContaining({ kind: "answer", quote: "8080" })]) });
    expect(stack.invalidEvents).toEqual([]);
  });

  it("told why, the model reads settings.py and answers 8421 (8400 + 21): done", async () => {
    const { end, of } = await run("recovers");
    expect(of("completion.rejected")).toHaveLength(1);
    expect(end.payload, JSON.stringify(end.payload)).toMatchObject({ state: "done", result: real });
    const nextRequest = stack.modelRequests("recovers").find((request) => JSON.stringify(request.messages).includes("A command that succeeded is not evidence for an answer"));
    expect(nextRequest).toBeDefined();
  });

  it("read server.py and settings.py, answer 8421: done at once", async () => {
    const { end, of } = await run("reads");
    expect(of("completion.rejected")).toEqual([]);
    expect(end.payload, JSON.stringify(end.payload)).toMatchObject({ state: "done" });
    expect(stack.invalidEvents).toEqual([]);
  });

  it("what the model was shown before its first turn (the trusted project instructions) backs an answer too", async () => {
    writeFileSync(join(stack.workspace, "AGENTS.md"), "# Notes\n\nStart the development server with APP_PORT=9100 python server.py.\n");
    const { end, of } = await run("instructed", "Which port does the development server of this project use?");
    expect(of("completion.rejected").map((e) => e.payload)).toEqual([]);
    expect(end.payload, JSON.stringify(end.payload)).toMatchObject({ state: "done", result: fromInstructions });
  });
});
