import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";

/**
 * Seed 000 T10 over the real services: `curl` is marked CONSENT_REQUIRED; approved without
 * consent it runs in the sandbox with no network (it cannot reach a server on the host's
 * loopback) and the model is told why; approved with consent it reaches the server, and the
 * egress-journal entry was stored before the request arrived.
 */
describe.skipIf(!ready)(`network consent for curl (real tools sandbox)${skipReason}`, () => {
  let stack: Stack;
  let server: Server;
  const hits: number[] = [];
  let session = "";
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(Date.now());
      response.end('{"answer":42}\n');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/data`;
    stack = await startStack([
      { text: call.run(`curl -sS --max-time 5 ${url}`) },
      { text: `It failed without network; asking again with consent.\n${call.run(`curl -sS --max-time 5 ${url}?again=1`)}` },
      { text: call.complete("Fetched the data: answer 42.") },
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    server?.close();
  });

  it("marks, refuses without consent, runs after consent with the journal entry first", async () => {
    const started = await stack.command("start", { task: "Fetch the data from the local server with curl", workspace: stack.workspace, auto_approve: { edits: true, commands: ["curl"] } });
    session = started.result.session;
    const first = await stack.waitFor((e) => e.session === session && e.type === "approval.requested");
    expect(first.payload).toMatchObject({ tool: "run_command", network: "consent_required" });
    await stack.command("decision", { session, approval: (first.payload as { approval: string }).approval, decision: "approve" });
    const firstDone = await stack.waitFor((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "run_command");
    expect(firstDone.payload).toMatchObject({ is_error: true });
    expect(hits).toHaveLength(0);
    expect(await stack.egressCount()).toBe(0);

    const second = await stack.waitFor(
      (e) => e.session === session && e.type === "approval.requested" && (e.payload as { approval: string }).approval !== (first.payload as { approval: string }).approval,
    );
    await stack.command("decision", { session, approval: (second.payload as { approval: string }).approval, decision: "approve", consent_network: true });
    const end = await stack.terminal(session);
    expect(end.payload).toMatchObject({ state: "done" });
    expect(hits).toHaveLength(1);

    const jsm = await stack.tester.jetstreamManager();
    const journal = await jsm.streams.getMessage("AGENT_AUDIT", { seq: 1 });
    const entry = JSON.parse(new TextDecoder().decode(journal.data));
    expect(entry).toMatchObject({ session, approval: (second.payload as { approval: string }).approval, command: expect.stringContaining("again=1") });
    expect(journal.time.getTime()).toBeLessThanOrEqual(hits[0]);
    expect(await stack.egressCount()).toBe(1);
    // Every client reads the same network decision off the record.
    const decided = stack.events.filter((e) => e.session === session && e.type === "approval.decided").map((e) => e.payload);
    expect(decided).toEqual([expect.objectContaining({ decision: "approve", network: false }), expect.objectContaining({ decision: "approve", network: true })]);
  });

  it("told the model why the first attempt failed", async () => {
    const requests = readFileSync(join(stack.dir, "model-requests.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const second = requests[1].messages.at(-1).content as string;
    expect(second).toMatch(/WITHOUT network/);
  });
});
