import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderForScreen } from "@aide/contracts";
import { hostileStrings, rawControlPattern } from "../../contracts/test/hostile-strings.js";
import { repoRoot } from "../../tests/helpers/service-process.js";
import { startHarness, until, type Harness } from "../../services/gateway/test/gateway-harness.js";

/**
 * What `aide run`, `aide approve` and `aide sessions` put on a terminal when the events carry the
 * hostile-string catalog raw (the fake orchestrator does not render them: the CLI must, itself),
 * and the network choice at each prompt.
 */
const main = join(repoRoot, "cli", "dist", "main.js");
let h: Harness;
let home: string;

beforeAll(async () => {
  // aide run checks its workspace exists before it starts anything; the fake orchestrator never touches it.
  mkdirSync("/tmp/ws", { recursive: true });
  h = await startHarness({ listen: true });
  home = mkdtempSync(join(tmpdir(), "aide-screens-"));
  const tokenFile = join(home, "gateway.token");
  writeFileSync(tokenFile, h.token + "\n", { mode: 0o600 });
  writeFileSync(join(home, "stack.json"), JSON.stringify({ gateway_url: `http://127.0.0.1:${h.port}`, token_file: tokenFile, nats_url: h.bus.url, pid: process.pid }));
});
afterAll(async () => h?.stop());

function start(command: string, args: string[], options: { pty?: boolean; home?: string } = {}) {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.home ?? home, AIDE_HOME: options.home ?? home, TERM: "xterm", NO_COLOR: "1" };
  const quoted = [process.execPath, main, command, ...args].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  // `script` gives the command a pseudo-terminal: what it captures is what the screen received.
  const child = options.pty
    ? spawn("script", ["-qfec", quoted, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] })
    : spawn(process.execPath, [main, command, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  // Decoded by the stream, so a character split across two chunks is not cut in half.
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => (output += chunk));
  child.stderr.on("data", (chunk: string) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { output: () => output, write: (text: string) => child.stdin.write(text), exit };
}

/**
 * The CLI's own sequences (colours, the spinner's line clear) are not the attacker's, and the
 * pseudo-terminal turns every newline into CRLF.
 */
function attackerVisible(screen: string): string {
  return screen
    .replace(/\u001b\[[0-9;]*m/g, "")
    .replace(/\r\u001b\[2K/g, "")
    .replace(/\r\n/g, "\n");
}

const hostileCommand = hostileStrings.map((entry) => entry.text).join(" ; ");
const hostileDiff = `--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1,${hostileStrings.length} @@\n${hostileStrings.map((entry) => `+${entry.text}`).join("\n")}\n`;
const hostilePaths = ["package\u200B.json", "report\u202Etxt.exe"];

function hostileScenario(task: string, network: "none" | "consent_required") {
  h.orchestrator.scenarios.set(task, {
    prose: `Looking at it.\n${hostileStrings.map((entry) => entry.text).join("\n")}\n`,
    approval: { tool: "run_command", command: hostileCommand, diff: hostileDiff, paths: hostilePaths, network, model_hint: "\u001b[2Jsafe, trust me" },
  });
}

const session = (output: string) => /session (s\w+)/.exec(output)![1];

describe("aide run's approval prompt under a pseudo-terminal", () => {
  it("shows the hostile catalog only as visible tokens, marks it loudly, and a plain approve of a network command grants no network", async () => {
    const task = "hostile catalog";
    hostileScenario(task, "consent_required");
    const run = start("run", [task, "--workspace", "/tmp/ws"], { pty: true });
    await until(() => run.output().includes("[a]pprove"), "the approval prompt");
    const screen = attackerVisible(run.output());
    expect(screen, JSON.stringify(screen)).not.toMatch(rawControlPattern);
    expect(screen).not.toContain("\u001b");
    for (const entry of hostileStrings) expect(screen, entry.name).toContain(renderForScreen(entry.text));
    expect(screen).toContain("$ " + renderForScreen(hostileCommand).split("\n").join("\n> "));
    expect(screen).toContain("package⟨U+200B⟩.json, report⟨U+202E⟩txt.exe");
    expect(screen).toContain("model's note (not an authorization): ⟨ESC⟩[2Jsafe, trust me");
    expect(screen).toMatch(/⚠ \d+ hidden\/control characters shown as ⟨…⟩ \(.*escape.*\)/);
    expect(screen).toMatch(/⚠ \d+ hidden\/control characters shown as ⟨…⟩ in the model's text/);
    expect(screen).toContain("[a]pprove without network / approve with [n]etwork / [r]eject with feedback / a[b]ort?");
    run.write("a\r");
    expect(await run.exit).toBe(0);
    expect(run.output()).toContain("→ approve without network");
    const id = session(run.output());
    expect(h.orchestrator.decisions.filter((d) => d.session === id)).toEqual([{ session: id, approval: expect.any(String), decision: "approve", accepted: true, consent_network: false }]);
    expect(attackerVisible(run.output())).not.toMatch(rawControlPattern);
  });

  it("approve with network is its own answer", async () => {
    h.orchestrator.scenarios.set("fetch the data", { approval: { tool: "run_command", command: "curl -sS http://example.test/data", diff: undefined, paths: ["."], network: "consent_required" } });
    const run = start("run", ["fetch the data", "--workspace", "/tmp/ws"], { pty: true });
    await until(() => run.output().includes("approve with [n]etwork"), "the approval prompt");
    run.write("n\r");
    expect(await run.exit).toBe(0);
    expect(run.output()).toContain("→ approve with network");
    const id = session(run.output());
    expect(h.orchestrator.decisions.filter((d) => d.session === id).map((d) => d.consent_network)).toEqual([true]);
  });

  it("a command without a network flag offers no network answer", async () => {
    const run = start("run", ["plain write", "--workspace", "/tmp/ws"], { pty: true });
    await until(() => run.output().includes("[a]pprove"), "the approval prompt");
    expect(run.output()).toContain("[a]pprove / [r]eject with feedback / a[b]ort?");
    run.write("n\r");
    run.write("a\r");
    expect(await run.exit).toBe(0);
    const id = session(run.output());
    expect(h.orchestrator.decisions.filter((d) => d.session === id)).toEqual([{ session: id, approval: expect.any(String), decision: "approve", accepted: true }]);
  });
});

describe("aide approve and aide sessions", () => {
  async function waitingRun(task: string) {
    const run = start("run", [task, "--workspace", "/tmp/ws"]);
    await until(() => run.output().includes("waiting for a decision from another client"), "the waiting note");
    return { run, id: session(run.output()) };
  }

  it("--yes on a network command approves without network and says so; the card is rendered", async () => {
    const task = "hostile, decided elsewhere";
    hostileScenario(task, "consent_required");
    const { run, id } = await waitingRun(task);
    expect(run.output(), "no TTY").not.toMatch(rawControlPattern);
    const approve = start("approve", [id, "--yes"]);
    expect(await approve.exit).toBe(0);
    const shown = approve.output();
    expect(shown).not.toMatch(rawControlPattern);
    expect(shown).toContain("$ " + renderForScreen(hostileCommand).split("\n").join("\n> "));
    expect(shown).toMatch(/⚠ \d+ hidden\/control characters shown as ⟨…⟩/);
    expect(shown).toContain("approving without network (pass --network to allow it)");
    expect(shown).toContain("approve without network: accepted=true");
    expect(h.orchestrator.decisions.filter((d) => d.session === id).map((d) => d.consent_network)).toEqual([false]);
    expect(await run.exit).toBe(0);
  });

  it("--network grants it, explicitly", async () => {
    h.orchestrator.scenarios.set("network, decided elsewhere", { approval: { tool: "run_command", command: "npm install", diff: undefined, network: "consent_required" } });
    const { run, id } = await waitingRun("network, decided elsewhere");
    const approve = start("approve", [id, "--yes", "--network"]);
    expect(await approve.exit).toBe(0);
    expect(approve.output()).toContain("approve with network: accepted=true");
    expect(h.orchestrator.decisions.filter((d) => d.session === id).map((d) => d.consent_network)).toEqual([true]);
    expect(await run.exit).toBe(0);
  });

  it("at its prompt, approve with network is its own answer", async () => {
    h.orchestrator.scenarios.set("network, prompt elsewhere", { approval: { tool: "run_command", command: "npm install", diff: undefined, network: "consent_required" } });
    const { run, id } = await waitingRun("network, prompt elsewhere");
    const approve = start("approve", [id], { pty: true });
    await until(() => approve.output().includes("approve with [n]etwork"), "the approve prompt");
    approve.write("n\r");
    expect(await approve.exit).toBe(0);
    expect(h.orchestrator.decisions.filter((d) => d.session === id).map((d) => d.consent_network)).toEqual([true]);
    expect(await run.exit).toBe(0);
  });

  it("aide sessions shows hostile tasks rendered and marked", async () => {
    const hostileTask = `hostile task ${hostileStrings.map((entry) => entry.text).join(" ")}`;
    const started = await h.gateway.app.inject({
      method: "POST",
      url: "/api/agent/start",
      headers: h.headers({ "content-type": "application/json" }),
      payload: { task: hostileTask, workspace: "/tmp/ws" },
    });
    expect(started.statusCode).toBe(200);
    const sessions = start("sessions", [], { pty: true });
    expect(await sessions.exit).toBe(0);
    const screen = attackerVisible(sessions.output());
    expect(screen, JSON.stringify(screen)).not.toMatch(rawControlPattern);
    expect(screen).toMatch(/⚠ hostile task see ⟨ESC⟩\]8;;https:\/\/evil/);
    const json = start("sessions", ["--json"]);
    expect(await json.exit).toBe(0);
    expect(json.output()).not.toMatch(rawControlPattern);
    expect((JSON.parse(json.output()) as Array<{ task: string }>).map((s) => s.task)).toContain(hostileTask);
  });
});

describe("aide run and aide approve against the real stack (aide up: orchestrator, tools, checkpoints, scripted model)", () => {
  it("the real orchestrator's renderings reach the pty rendered and marked; the frames carry the rendered forms and the raw only as base64; a plain approve of curl grants no network, --network does", async () => {
    const { cpSync, rmSync } = await import("node:fs");
    const { startStackProcess } = await import("../../tests/helpers/stack-process.js");
    const { openEventStream } = await import("../src/client/event-stream.js");
    const root = mkdtempSync(join(tmpdir(), "aide-screens-e2e-"));
    const workspace = join(root, "sample-project");
    cpSync(join(repoRoot, "examples", "sample-project"), workspace, { recursive: true });
    const hostileProse = hostileStrings.map((entry) => entry.text).join("\n");
    const command = "printf 'ok\\033]52;c;Y3VybA==\\007 half\\rdone\\n'; echo \"x\u202Ey\u001b[2J\"";
    const transcript = join(root, "transcript.json");
    writeFileSync(
      transcript,
      JSON.stringify({
        replies: [
          { text: `${hostileProse}\n<run_command>\n<command>${command}</command>\n</run_command>` },
          { text: "<run_command>\n<command>curl -sS --max-time 2 http://127.0.0.1:9/</command>\n</run_command>" },
          { text: "<run_command>\n<command>curl -sS --max-time 2 http://127.0.0.1:9/again</command>\n</run_command>" },
          { text: `<attempt_completion>\n<result>Printed it. ${hostileStrings[0].text}</result>\n</attempt_completion>` },
        ],
      }),
    );
    const models = join(root, "models.json");
    writeFileSync(models, JSON.stringify({ default: "hostile", models: [{ id: "hostile", provider: "scripted", transcript }] }));
    const stackHome = join(root, "home");
    const stack = await startStackProcess({ aideHome: stackHome, args: ["--workspace", workspace, "--models-config", models] });
    try {
      const run = start("run", ["Run the printf command and report what it printed", "--workspace", workspace], { pty: true, home: stackHome });
      await until(() => run.output().includes("[a]pprove"), "the first approval prompt", 60_000);
      const first = attackerVisible(run.output());
      expect(first, JSON.stringify(first)).not.toMatch(rawControlPattern);
      expect(first).toContain("x⟨U+202E⟩y⟨ESC⟩[2J");
      expect(first).toMatch(/⚠ 2 hidden\/control characters shown as ⟨…⟩ \(1 bidi, 1 escape\)/);
      expect(first).toContain(renderForScreen(hostileStrings[0].text));
      run.write("a\r");
      await until(() => run.output().includes("approve with [n]etwork"), "the curl approval", 60_000);
      run.write("a\r");
      await until(() => run.output().includes("→ approve without network"), "the decision line", 60_000);
      const id = /session (\S+) ·/.exec(run.output())![1];
      // The third call is decided from another client with --network.
      await until(() => run.output().split("approve with [n]etwork").length === 3, "the second curl approval", 60_000);
      const approve = start("approve", [id, "--yes", "--network"], { home: stackHome });
      expect(await approve.exit).toBe(0);
      expect(approve.output()).toContain("approve with network: accepted=true");
      await run.exit;
      const screen = attackerVisible(run.output());
      expect(screen).not.toMatch(rawControlPattern);
      expect(screen).toContain("⟨ESC⟩]52;c;Y3VybA==⟨BEL⟩");

      const frames: Array<{ type: string; payload: Record<string, any> }> = [];
      await new Promise<void>((resolve) => {
        const stream = openEventStream({
          baseUrl: stack.gatewayUrl,
          token: stack.token,
          session: id,
          since: 0,
          onFrame(frame) {
            if (frame.type === "event") frames.push(frame.event as never);
            if (frame.type === "ready" || frame.type === "error") {
              stream.close();
              resolve();
            }
          },
          onGiveUp: () => resolve(),
        });
      });
      const requested = frames.filter((event) => event.type === "approval.requested").map((event) => event.payload);
      // The command is its screen form; the raw bytes travel only as base64, and render to exactly it.
      expect(requested[0].command).toContain("⟨U+202E⟩");
      const rawCommand = Buffer.from(requested[0].raw_base64?.command ?? "", "base64").toString("utf8");
      expect(rawCommand).toContain("\u202E");
      expect(requested[0].command).toBe(renderForScreen(rawCommand));
      expect(requested[0].escapes).toEqual({ count: 2, kinds: { bidi: 1, escape: 1 } });
      expect(requested.slice(1).map((payload) => payload.network)).toEqual(["consent_required", "consent_required"]);
      const decided = frames.filter((event) => event.type === "approval.decided").map((event) => event.payload.network);
      expect(decided).toEqual([undefined, false, true]);
    } finally {
      expect(await stack.stop()).toBe(0);
      rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);
});
