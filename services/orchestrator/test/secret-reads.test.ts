import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "@aide/contracts";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

const apiKey = "sk-proj-Zq8vK2mN4pR6tX9wB1cD3fG5";
const password = "hunter2-correct-horse";
const search = (pattern: string) => `<search_files>\n<pattern>${pattern}</pattern>\n</search_files>`;

/** Issue 12 item 4 over the real processes: secret-looking files need their own approval; events never carry their values. */
describe.skipIf(!ready)(`secret files${skipReason}`, () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ text: call.read(".env") }, { text: call.complete("The .env file sets OPENAI_API_KEY and DB_PASSWORD.") }], {
      orchestratorEnv: { AIDE_DEFAULT_MODEL: "s1" },
      models: {
        reject: [{ text: call.read(".env") }, { text: call.complete("I could not read .env.") }],
        search: [{ text: search("hunter2") }, { text: call.read("config.js") }, { text: call.complete("config.js has the password.") }],
        link: [{ text: call.read("settings.txt") }, { text: call.complete("settings.txt read.") }],
      },
    });
    writeFileSync(join(stack.workspace, ".env"), `OPENAI_API_KEY=${apiKey}\nDB_PASSWORD=${password}\n`);
    writeFileSync(join(stack.workspace, "config.js"), `export const db = { user: "app", password: "${password}" };\n`);
    symlinkSync(".env", join(stack.workspace, "settings.txt"));
  });
  afterAll(async () => stack?.stop());

  const of = (session: string) => (e: AgentEvent) => e.session === session;

  async function start(model: string, task: string): Promise<string> {
    // Every rule a person can set is on: none of them covers a secret read.
    const started = await stack.command("start", { allow_concurrent: true, task, workspace: stack.workspace, model, auto_approve: { edits: true, commands: ["cat", "node"], memory: true } });
    expect(started).toMatchObject({ ok: true });
    return started.result.session;
  }

  it("reading .env waits for a secret_read approval; the model gets the approved content, events never the values", async () => {
    const session = await start("s1", "What does .env configure?");
    const requested = await stack.waitFor((e) => of(session)(e) && e.type === "approval.requested");
    expect(requested.payload).toMatchObject({ tool: "read_file", kind: "secret_read", paths: [".env"] });
    expect(stack.events.some((e) => of(session)(e) && e.type === "tool.started")).toBe(false);
    const approval = (requested.payload as { approval: string }).approval;
    expect(await stack.command("decision", { session, approval, decision: "approve" })).toMatchObject({ ok: true });
    await stack.terminal(session);
    const completed = stack.events.find((e) => of(session)(e) && e.type === "tool.completed" && (e.payload as { tool: string }).tool === "read_file")!;
    expect(completed.payload).toMatchObject({ is_error: false });
    const sessionEvents = JSON.stringify(stack.events.filter(of(session)));
    expect(sessionEvents).not.toContain(password);
    expect(sessionEvents).not.toContain(apiKey);
    expect((completed.payload as { summary: string }).summary).toContain("not shown in events");
    const told = stack.modelRequests("s1")[1].messages.at(-1)!.content;
    expect(told).toContain(password);
  });

  it("a rejected secret read gives the model nothing of the file", async () => {
    const session = await start("reject", "What does .env configure?");
    const requested = await stack.waitFor((e) => of(session)(e) && e.type === "approval.requested");
    expect(requested.payload).toMatchObject({ kind: "secret_read" });
    await stack.command("decision", { session, approval: (requested.payload as { approval: string }).approval, decision: "reject" });
    await stack.terminal(session);
    const told = stack.modelRequests("reject")[1].messages.at(-1)!.content;
    expect(told).toContain("did not approve reading the secret-looking file .env");
    expect(told).not.toContain(password);
  });

  it("search leaves secret files out; a plain file's summary has its password redacted", async () => {
    const session = await start("search", "Where is the database password configured?");
    await stack.terminal(session);
    expect(stack.events.some((e) => of(session)(e) && e.type === "approval.requested")).toBe(false);
    const searched = stack.modelRequests("search")[1].messages.at(-1)!.content;
    expect(searched).toContain("config.js (1)");
    expect(searched).not.toMatch(/^\.env \(/m);
    expect(searched).toContain("left out of search results");
    const read = stack.events.find((e) => of(session)(e) && e.type === "tool.completed" && (e.payload as { tool: string }).tool === "read_file")!;
    expect((read.payload as { summary: string }).summary).toContain('password: "[redacted]"');
    expect(JSON.stringify(stack.events.filter(of(session)))).not.toContain(password);
  });

  it("a harmless name that resolves to .env is approved as a secret read before its content is shown", async () => {
    const session = await start("link", "What is in settings.txt?");
    const requested = await stack.waitFor((e) => of(session)(e) && e.type === "approval.requested");
    expect(requested.payload).toMatchObject({ tool: "read_file", kind: "secret_read", paths: [".env"] });
    await stack.command("decision", { session, approval: (requested.payload as { approval: string }).approval, decision: "reject" });
    await stack.terminal(session);
    expect(stack.modelRequests("link")[1].messages.at(-1)!.content).not.toContain(password);
    expect(stack.events.filter((e) => of(session)(e) && e.type === "tool.completed" && (e.payload as { tool: string }).tool === "read_file")).toHaveLength(1);
    expect(JSON.stringify(stack.events.filter(of(session)))).not.toContain(password);
    expect(stack.invalidEvents).toEqual([]);
  });
});
