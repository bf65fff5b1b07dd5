import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderForScreen, type AgentEvent } from "@aide/contracts";
import { firstRawControl as firstRaw, rawControlPattern, stringsOf as strings } from "../../contracts/test/hostile-strings.js";
import { createGateway, type Gateway } from "../../services/gateway/src/gateway.js";
import { until } from "../../services/gateway/test/gateway-harness.js";
import { call } from "../../services/orchestrator/test/support/scripted-calls.js";
import { stackSkipReason, startStack, type Stack } from "../../services/orchestrator/test/support/stack.js";
import { repoRoot } from "../helpers/service-process.js";

/**
 * Issue 26's done-when, over the real stack (scripted model, orchestrator, tools, checkpoints, the
 * MCP service with a poisoned stdio server in its sandbox, the gateway): a run whose file, write,
 * command and MCP tool hold ESC/OSC/BEL, a bidi override, Unicode Tags and a lone CR. The operator's
 * `nats sub 'agent.>'` in a pty, a subscriber that keeps the exact bytes, and the gateway's WebSocket
 * see no raw control or invisible character; the model's input holds none either.
 */
const skipReason = stackSkipReason();
const poisonedServer = join(repoRoot, "services", "mcp", "test", "fixtures", "poisoned-server.mjs");
const tags = [..."IGNORE PREVIOUS"].map((char) => String.fromCodePoint(0xe0000 + char.charCodeAt(0))).join("");
const hostile = `\u001b]52;c;Y3VybCBldmls\u0007\u001b[2J\u202Etxt.exe\u202C${tags}\u009b1m`;
const fileText = `line one ${hostile}\nhalf\roverwritten\n`;
const command = `printf '%s' 'ran \u202Eok${tags}' > ran.txt`;

/** The real `nats` CLI: $AIDE_NATS_CLI, on PATH, or where `go install …/natscli/nats` puts it. */
function natsCli(): string | undefined {
  const candidates = [process.env.AIDE_NATS_CLI, ...(process.env.PATH ?? "").split(":").map((dir) => join(dir, "nats")), join(homedir(), "go", "bin", "nats")];
  return candidates.find((path): path is string => path !== undefined && path !== "" && existsSync(path) && spawnSync(path, ["--version"]).status === 0);
}
const nats = natsCli();
const quote = (part: string) => `'${part.replace(/'/g, `'\\''`)}'`;
/**
 * Why the CLI cannot be watched in a pty here, or "" when it can: `script(1)` must be installed and
 * able to open a pseudo-terminal (a container without /dev/pts cannot), and the CLI must print its
 * version through it. Checked before the stack starts, so a machine without ptys says so instead
 * of waiting for output that cannot come.
 */
function ptyProblem(): string {
  if (!nats) return "no nats CLI: go install github.com/nats-io/natscli/nats@v0.5.0, or set AIDE_NATS_CLI";
  if (spawnSync("script", ["--version"]).status !== 0) return "no script(1) for a pty";
  const tried = spawnSync("script", ["-qfec", `${quote(nats)} --version`, "/dev/null"], { encoding: "utf8", timeout: 30_000, stdio: ["pipe", "pipe", "pipe"] });
  if (/\d+\.\d+\.\d+/.test(tried.stdout ?? "")) return "";
  const said = `${tried.stderr ?? ""} ${tried.stdout ?? ""} ${tried.error?.message ?? ""}`.replace(/\s+/g, " ").trim().slice(0, 200);
  return `script(1) could not run the nats CLI in a pty (exit ${tried.status ?? tried.signal}: ${JSON.stringify(said)})`;
}
const noPty = ptyProblem();

describe.skipIf(skipReason !== "")(`hostile bytes never reach an observer or the model raw (real stack)${skipReason}`, () => {
  let stack: Stack;
  let gateway: Gateway;
  let port: number;
  const token = "wire-test-token-0123456789abcdef";
  let observer: ChildProcess | undefined;
  let observed = Buffer.alloc(0);
  const exact: Buffer[] = [];
  const frames: Buffer[] = [];
  const restBodies: Buffer[] = [];
  let session = "";
  /** A REST call as every aide client makes it (the gateway publishes the command); its answer's exact bytes are kept. */
  const rest = async (path: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const bytes = Buffer.from(await response.arrayBuffer());
    restBodies.push(bytes);
    expect(response.status, bytes.toString("utf8")).toBe(200);
    return JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
  };
  let home = "";
  /** How each WebSocket of the watch ended (code and reason), for the failure message. */
  const closes: string[] = [];
  let watching = true;
  let socket: WebSocket | undefined;
  /**
   * The session's events over the gateway's WebSocket, as every aide client follows them: a socket
   * the gateway closes (`unavailable` when the stream could not be followed in time on a loaded
   * machine, `resume` for a slow reader) is opened again with `since` = the last seq received.
   */
  const watch = async (since: number): Promise<void> => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/events?session=${session}&since=${since}`, { headers: { authorization: `Bearer ${token}`, host: `127.0.0.1:${port}` } });
    socket = ws;
    let last = since;
    ws.on("message", (data: Buffer) => {
      frames.push(Buffer.from(data));
      const frame = JSON.parse(data.toString("utf8")) as { type?: string; event?: { seq?: number } };
      if (frame.type === "event" && typeof frame.event?.seq === "number") last = Math.max(last, frame.event.seq);
    });
    ws.on("close", (code: number, reason: Buffer) => {
      closes.push(`${code} ${reason.toString("utf8")}`);
      if (watching) setTimeout(() => void watch(last).catch((error: Error) => closes.push(`reopen failed: ${error.message}`)), 250);
    });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  };

  beforeAll(async () => {
    stack = await startStack(
      [
        { text: `Reading it. ${hostile}\n${call.read("hostile.txt")}` },
        { text: call.write("notes.md", `# notes ${hostile}\nhalf\rdone\n`) },
        { text: call.run(command) },
        { text: "<mcp__poisoned__lookup><word>x</word></mcp__poisoned__lookup>" },
        { text: call.complete(`Wrote notes.md and ran.txt. ${hostile}`) },
      ],
      { mcpServers: { poisoned: { command: process.execPath, args: [poisonedServer] } } },
    );
    writeFileSync(join(stack.workspace, "hostile.txt"), fileText);
    // A subscriber that keeps exactly the bytes each message carried.
    stack.tester.subscribe("agent.>", { callback: (_error, message) => void exact.push(Buffer.from(message.data)) });
    await stack.tester.flush();
    if (nats && noPty === "") {
      home = mkdtempSync(join(tmpdir(), "aide-natscli-"));
      const creds = stack.bus.credentials("tester");
      const line = [nats, "--server", stack.bus.url, `--user=${creds.user}`, `--password=${creds.password}`, "sub", "agent.>"].map(quote).join(" ");
      // `script` gives the CLI a real pty: what it prints is what an operator's terminal would get.
      const watcher = spawn("script", ["-qfec", line, "/dev/null"], { env: { ...process.env, HOME: home, TERM: "xterm-256color" }, stdio: ["pipe", "pipe", "pipe"] });
      observer = watcher;
      let stderr = "";
      watcher.stdout!.on("data", (chunk: Buffer) => void (observed = Buffer.concat([observed, chunk])));
      watcher.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")));
      const seen = () =>
        `(exit ${watcher.exitCode ?? watcher.signalCode ?? "none yet"}; printed ${JSON.stringify(observed.toString("utf8").slice(0, 300))}; stderr ${JSON.stringify(stderr.slice(0, 300))})`;
      await until(
        () => {
          if (/Subscribing on agent\.>/.test(observed.toString("utf8"))) return true;
          if (watcher.exitCode !== null || watcher.signalCode !== null) throw new Error(`nats sub ended before it subscribed ${seen()}`);
          return undefined;
        },
        () => `nats sub to start ${seen()}`,
        60_000,
      );
    }
    gateway = createGateway({ connection: await stack.bus.connectAs("gateway"), logger: pino({ level: "silent" }), token, port: 0, panelDir: join(repoRoot, "services", "gateway", "panel") });
    port = await gateway.listen();
  }, 180_000);

  afterAll(async () => {
    watching = false;
    socket?.close();
    if (observer && observer.exitCode === null) observer.kill("SIGTERM");
    await gateway?.close();
    await stack?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("a run through a hostile file, write, command and MCP server: approvals show rendered text with the raw bytes only as base64, and the approved raw is what ran", async () => {
    const started = await rest("/api/agent/start", { task: `Read hostile.txt, note it, run the printf, look x up ${hostile}`, workspace: stack.workspace });
    session = started.session as string;
    await watch(0);
    const decided = new Set<string>();
    const approvals: AgentEvent[] = [];
    for (;;) {
      const next = await stack.waitFor(
        (e) => e.session === session && ((e.type === "approval.requested" && !decided.has(e.payload.approval)) || ["run.completed", "run.failed", "run.cancelled"].includes(e.type)),
        120_000,
      );
      if (next.type !== "approval.requested") break;
      decided.add(next.payload.approval);
      approvals.push(next);
      await rest("/api/agent/decision", { session, approval: next.payload.approval, decision: "approve" });
    }
    const end = await stack.terminal(session);
    expect(stack.invalidEvents).toEqual([]);
    const byTool = (tool: string) =>
      approvals.find((e) => e.type === "approval.requested" && e.payload.tool === tool)?.payload as Extract<AgentEvent, { type: "approval.requested" }>["payload"] | undefined;
    const runApproval = byTool("run_command");
    expect(runApproval, JSON.stringify(approvals.map((e) => e.payload))).toBeDefined();
    const rawCommand = Buffer.from(runApproval!.raw_base64?.command ?? "", "base64").toString("utf8");
    expect(rawCommand).toBe(command);
    expect(runApproval!.command).toBe(renderForScreen(rawCommand));
    // What ran is the raw the person approved: the file holds the RLO and the Tags themselves.
    expect(readFileSync(join(stack.workspace, "ran.txt"), "utf8")).toBe(`ran \u202Eok${tags}`);
    const writeApproval = byTool("write_file");
    expect(writeApproval?.diff).toContain("⟨ESC⟩]52;c;");
    expect(renderForScreen(Buffer.from(writeApproval?.raw_base64?.diff ?? "", "base64").toString("utf8"))).toBe(writeApproval?.diff);
    expect(readFileSync(join(stack.workspace, "notes.md"), "utf8")).toContain(`# notes ${hostile}`);
    // The poisoned MCP server is flagged on its call's approval.
    const mcpApproval = byTool("mcp__poisoned__lookup");
    expect(mcpApproval?.mcp?.hidden_characters).toBeGreaterThan(0);
    expect(end.type, JSON.stringify(end.payload)).not.toBe("run.failed");
    socket.close();
  }, 240_000);

  it("the model's input holds no raw C0/C1 control (the file's lone CR included) and no raw invisible character from the MCP server", () => {
    const requests = stack.modelRequests();
    expect(requests.length).toBeGreaterThanOrEqual(5);
    const lastInput = requests.at(-1)!;
    // The person's task is shown to the model as typed (invisible characters are flagged elsewhere); every control is a token.
    const controls = /[\u0000-\u0008\u000B-\u000C\u000E-\u001F\u007F-\u009F]|\r(?!\n)/u;
    for (const message of lastInput.messages) expect(message.content, firstRaw(message.content)).not.toMatch(controls);
    const results = lastInput.messages
      .filter((message) => message.content.includes("<tool_result"))
      .map((message) => message.content)
      .join("\n");
    expect(results).toContain("half⟨CR⟩overwritten");
    expect(results).toContain("⟨ESC⟩]52;c;");
    const mcpResult = lastInput.messages.find((message) => message.content.includes('source="mcp:poisoned"'))?.content ?? "";
    expect(mcpResult).toContain("definition of x:");
    expect(mcpResult, firstRaw(mcpResult)).not.toMatch(rawControlPattern);
    const lookup = (lastInput.tools as Array<{ name: string; description?: string; parameters?: unknown }>).find((tool) => tool.name === "mcp__poisoned__lookup");
    expect(lookup, "the poisoned tool is offered").toBeDefined();
    const toolText = JSON.stringify(lookup);
    expect(JSON.parse(toolText).description).toContain("⟨U+E0049⟩");
    for (const text of strings(lookup)) expect(text, firstRaw(text)).not.toMatch(rawControlPattern);
  });

  it("a subscriber that keeps the exact bytes of agent.> got none raw, no field of any event holds one once parsed, and the REST answers carry none", async () => {
    // A command's answer is rendered like an event: the session's task as the person's screen shows it.
    const status = await fetch(`http://127.0.0.1:${port}/api/agent/status?id=${session}`, { headers: { authorization: `Bearer ${token}` } });
    const statusBytes = Buffer.from(await status.arrayBuffer());
    restBodies.push(statusBytes);
    const snapshot = JSON.parse(statusBytes.toString("utf8")) as { task: string };
    expect(snapshot.task).toBe(renderForScreen(`Read hostile.txt, note it, run the printf, look x up ${hostile}`));
    expect(exact.length).toBeGreaterThan(20);
    for (const body of restBodies) expect(body.toString("utf8"), firstRaw(body.toString("utf8"))).not.toMatch(rawControlPattern);
    for (const body of restBodies) for (const value of strings(JSON.parse(body.toString("utf8")))) expect(value, firstRaw(value)).not.toMatch(rawControlPattern);
    for (const data of exact) {
      const text = data.toString("utf8");
      expect(text, firstRaw(text)).not.toMatch(rawControlPattern);
    }
    for (const event of stack.events.filter((e) => e.session === session)) for (const text of strings(event.payload)) expect(text, `${event.type} ${firstRaw(text)}`).not.toMatch(rawControlPattern);
  });

  it("the gateway's WebSocket frames hold no raw control or invisible byte", async () => {
    await until(
      () => (frames.some((frame) => frame.toString("utf8").includes('"run.completed"') || frame.toString("utf8").includes('"run.failed"')) ? true : undefined),
      () =>
        `the terminal event on the WebSocket (${frames.length} frames: ${frames.map((frame) => (JSON.parse(frame.toString("utf8")) as { type?: string; event?: { type?: string } }).event?.type ?? (JSON.parse(frame.toString("utf8")) as { type?: string }).type).join(", ")}; sockets closed: ${JSON.stringify(closes)})`,
      50_000,
    );
    for (const frame of frames) {
      const text = frame.toString("utf8");
      expect(text, firstRaw(text)).not.toMatch(rawControlPattern);
      for (const value of strings(JSON.parse(text))) expect(value, firstRaw(value)).not.toMatch(rawControlPattern);
    }
  });

  it.skipIf(noPty !== "")(`\`nats sub 'agent.>'\` in a pty prints no raw control or invisible byte${noPty === "" ? "" : ` [SKIPPED: ${noPty}]`}`, async () => {
    await until(() => (/agent\.evt\.[^\s]+\.run\.(completed|failed)/.test(observed.toString("utf8")) ? true : undefined), "nats sub to print the run's last event", 60_000);
    // The pty turns each newline into CRLF (its onlcr): that CR is the terminal's, not a message's.
    const text = observed.toString("utf8").replace(/\r\n/g, "\n");
    expect(text).toContain("approval.requested");
    expect(text).toContain("⟨ESC⟩]52;c;");
    // The pty turns each newline into CRLF; the CLI's own colours would be ESC too, and there are none.
    expect(text, firstRaw(text)).not.toMatch(rawControlPattern);
  });
});
