import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call } from "./support/scripted-calls.js";
import { built, stackSkipReason, startStack, type Stack } from "./support/stack.js";

const skipReason = stackSkipReason() || (built("gateway") ? "" : " [SKIPPED: the gateway is not built; run npx tsc -b]");

/** 1.5 MB of text (base64 lines and some non-ASCII), within write_file's 4 MB but over the bus's 1 MB. */
function bigText(): string {
  const lines: string[] = [];
  for (let index = 0; lines.join("\n").length < 1_500_000 && index < 40_000; index += 1) {
    lines.push(`${index} ${randomBytes(45).toString("base64")} é✓ ${index % 7 === 0 ? "ünïcödé" : "ascii"}`);
  }
  return lines.join("\n");
}

/**
 * Issue 14 item 5: a payload over the bus's max payload never fails the run. The scripted model
 * replies with a 1.5 MB write_file; the reply (model → orchestrator), the preview and the call
 * (orchestrator → tools) and the checkpoint diff (checkpoints → gateway → client) each travel in
 * chunks, over the real processes.
 */
describe.skipIf(skipReason !== "")(`payloads over the bus's max payload${skipReason}`, () => {
  let stack: Stack;
  let gateway: ServiceProcess;
  let gatewayUrl: string;
  const token = "0123456789abcdef0123456789abcdef";
  const content = bigText();

  beforeAll(async () => {
    stack = await startStack([
      { text: `Writing the data file.\n${call.write("data/big.txt", content)}` },
      { text: call.read("data/big.txt") },
      { text: call.complete("Wrote data/big.txt (1.5 MB).") },
    ]);
    const tokenFile = join(stack.dir, "gateway.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    gateway = await startServiceProcess(stack.bus, "gateway", { env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_LOG_LEVEL: "info" }, pinger: stack.tester });
    for (let tries = 0; tries < 100 && !/"port":(\d+)/.test(gateway.logs()); tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    gatewayUrl = `http://127.0.0.1:${/"port":(\d+)/.exec(gateway.logs())![1]}`;
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await stack?.stop();
  });

  it("the server's max payload is the 1 MiB default and the content is over it", () => {
    expect(stack.tester.info?.max_payload).toBe(1024 * 1024);
    expect(Buffer.byteLength(content)).toBeGreaterThan(1.4 * 1024 * 1024);
  });

  it("a 1.5 MB write_file from the model is approved, written byte-exact, and the run is done; its diff reaches the client whole", async () => {
    const started = await stack.command("start", { task: "Write the data file", workspace: stack.workspace });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const session = started.result.session as string;
    const asked = await stack.waitFor((e) => e.session === session && (e.type === "approval.requested" || e.type === "run.failed"), 60_000);
    expect(asked.type, JSON.stringify(asked.payload).slice(0, 500)).toBe("approval.requested");
    expect(asked.payload).toMatchObject({ tool: "write_file", paths: ["data/big.txt"] });
    const decided = await stack.command("decision", { session, approval: (asked.payload as { approval: string }).approval, decision: "approve" });
    expect(decided.ok, JSON.stringify(decided)).toBe(true);
    const end = await stack.terminal(session, undefined, 90_000);
    expect(end.type, JSON.stringify(end.payload)).toBe("run.completed");
    expect((end.payload as { state: string }).state).toBe("done");
    const written = readFileSync(join(stack.workspace, "data", "big.txt"), "utf8");
    expect(written.length).toBe(content.length);
    expect(written === content || written === `${content}\n`).toBe(true);
    const tool = stack.events.find((e) => e.session === session && e.type === "tool.completed" && e.payload.tool === "write_file");
    expect(tool?.payload.is_error).toBe(false);

    // The checkpoint taken before the write, diffed against the working tree, through the gateway.
    const headers = { authorization: `Bearer ${token}` };
    const list = await fetch(`${gatewayUrl}/api/checkpoints?session=${session}`, { headers });
    expect(list.status).toBe(200);
    const checkpoints = (await list.json()).checkpoints as Array<{ id: string }>;
    expect(checkpoints.length).toBeGreaterThan(0);
    const response = await fetch(`${gatewayUrl}/api/checkpoints/diff?session=${session}&from=${checkpoints[0]!.id}`, { headers });
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(200);
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
    const diff = JSON.parse(text) as { files: Array<{ path: string; diff?: string; truncated?: boolean }> };
    const file = diff.files.find((entry) => entry.path === "data/big.txt");
    expect(file?.truncated).toBeUndefined();
    const added = file!
      .diff!.split("\n")
      .filter((line) => line.startsWith("+") && !line.startsWith("+++"))
      .map((line) => line.slice(1));
    expect(added.join("\n") === content).toBe(true);
  }, 180_000);
});
