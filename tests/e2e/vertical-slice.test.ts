import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "nats";
import { AgentEventSchema } from "@aide/contracts";
import { postJson, readEvents, startStackProcess, type StackProcess } from "../helpers/stack-process.js";
import { repoRoot } from "../helpers/service-process.js";

/**
 * Issue 2's vertical slice over real processes: REST start on the gateway → agent.cmd.start →
 * the orchestrator runs turns with the scripted model → XML tool calls → the tools service
 * (jailed read_file / list_dir) → events in JetStream → a WebSocket client, replayable by seq.
 */
describe("the vertical slice (aide up, real processes, sandboxed services)", () => {
  let root: string;
  let workspace: string;
  let stack: StackProcess;
  let observer: NatsConnection;
  const observed: string[] = [];
  let tail: ChildProcess;
  let tailOutput = "";

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-slice-"));
    workspace = join(root, "workspace");
    mkdirSync(join(workspace, "src"), { recursive: true });
    writeFileSync(join(workspace, "README.md"), "# tiny\nA project that prints hello.\n");
    writeFileSync(join(workspace, "src", "hello.js"), "console.log('hello');\n");
    const transcript = join(root, "transcript.json");
    writeFileSync(
      transcript,
      JSON.stringify({
        replies: [
          { text: "I'll list the project.\n<list_dir>\n<path>.</path>\n<recursive>true</recursive>\n</list_dir>" },
          { text: "Now the README.\n<read_file>\n<path>README.md</path>\n</read_file>" },
          { text: "<attempt_completion>\n<result>The project prints hello (README.md, src/hello.js).</result>\n</attempt_completion>" },
        ],
      }),
    );
    const models = join(root, "models.json");
    writeFileSync(models, JSON.stringify({ default: "slice", models: [{ id: "slice", provider: "scripted", transcript }] }));
    stack = await startStackProcess({ aideHome: join(root, "home"), args: ["--workspace", workspace, "--models-config", models] });
    const creds = JSON.parse(readFileSync(stack.stack.observer_credentials, "utf8"));
    observer = await connect({ servers: stack.natsUrl, user: creds.user, pass: creds.password, tls: { caFile: stack.stack.nats_ca } });
    observer.subscribe("agent.>", { callback: (_error, message) => observed.push(message.subject) });
    await observer.flush();
    // `aide events`, as a person would run it beside the stack.
    tail = spawn(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "events"], { env: { ...process.env, AIDE_HOME: join(root, "home") }, stdio: ["ignore", "pipe", "pipe"] });
    tail.stdout?.on("data", (chunk: Buffer) => (tailOutput += chunk.toString()));
    await new Promise<void>((resolve) => tail.stderr?.once("data", () => resolve()));
  }, 120_000);

  afterAll(async () => {
    tail?.kill("SIGINT");
    await observer?.close();
    const code = await stack?.stop();
    expect(code).toBe(0);
    rmSync(root, { recursive: true, force: true });
  });

  it("start → events over the WebSocket in order, contiguous, replayable from a sequence → done", async () => {
    const started = await postJson(stack, "/api/agent/start", { task: "Read the README and say what the project does.", mode: "act", workspace });
    expect(started.status).toBe(200);
    const session = started.body.session as string;

    // First connection: drop it after three events, as a client that loses its network would.
    const first = await readEvents(stack, session, 0, (_event, all) => all.length >= 3);
    const lastSeen = first[first.length - 1].seq as number;
    // Reconnect from the last sequence seen; the rest arrives, no gap, no duplicate.
    const rest = await readEvents(stack, session, lastSeen, (event) => ["run.completed", "run.failed", "run.cancelled"].includes(event.type));
    const all = [...first, ...rest];
    expect(all.map((event) => `${event.seq}:${event.type}`).join(" ")).toBe(all.map((event, index) => `${index + 1}:${event.type}`).join(" "));
    for (const event of all) expect(AgentEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);

    expect(all[0].type).toBe("run.created");
    const tools = all.filter((event) => event.type === "tool.completed");
    expect(tools.map((event) => [event.payload.tool, event.payload.is_error])).toEqual([
      ["list_dir", false],
      ["read_file", false],
      ["attempt_completion", false],
    ]);
    const final = all[all.length - 1];
    expect(final.type).toBe("run.completed");
    expect(final.payload.state).toBe("done");

    // A client that replays everything later gets the same sequence.
    const replay = await readEvents(stack, session, 0, (event) => event.seq === final.seq);
    expect(replay.map((event) => event.seq)).toEqual(all.map((event) => event.seq));

    // The observer on the bus (what `nats sub 'agent.>'` shows) saw the same events.
    await observer.flush();
    const seen = observed.filter((subject) => subject.startsWith(`agent.evt.${session}.`));
    expect(seen.length).toBe(all.length);
    // And `aide events` printed the run, one line per event (deltas folded away).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tailOutput).toMatch(new RegExp(`${session.slice(0, 12)}\\s+#\\s+1 run\\.created`));
    expect(tailOutput).toContain("run.completed");
    expect(tailOutput).toContain("DONE:");
    expect(tailOutput).not.toContain("model.delta");
  });
});
