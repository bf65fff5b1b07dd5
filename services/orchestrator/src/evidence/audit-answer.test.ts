import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { answerSources, answerTokens, auditAnswer } from "./audit-answer.js";
import type { EvidenceEvent } from "./evidence-kind.js";
import { EvidenceLedger } from "./evidence-ledger.js";

let seq = 0;
function event(tool: string, args: Record<string, unknown>, options: Partial<EvidenceEvent> = {}): EvidenceEvent {
  seq += 1;
  return { seq, tool, is_error: false, args, metadata: {}, output: "", changed_paths: [], ...options };
}
const read = (path: string, text: string) =>
  event(
    "read_file",
    { path },
    {
      output: text
        .split("\n")
        .map((line, index) => `${String(index + 1).padStart(4)}\t${line}`)
        .join("\n"),
    },
  );
const run = (command: string, exit: number, output = "") =>
  event("run_command", { command }, { metadata: { exit_code: exit }, is_error: exit !== 0, output: `Exit code: ${exit}\n${output === "" ? "(no output)" : output}` });
const unbacked = (answer: string, task: string, ...events: EvidenceEvent[]) =>
  auditAnswer(
    answer,
    task,
    answerSources(events, (entry) => entry.output),
  ).unbacked.map((token) => token.text);

const settings = 'import os\n\nBASE_PORT = 8400\nOFFSET = 21\n\n\ndef port():\n    return int(os.environ.get("APP_PORT", BASE_PORT + OFFSET))';
const portTask = "Which environment variable sets the port of the server in this project, and what is its default?";

describe("the answer audit: an answer's names and numbers come from what the run read or ran", () => {
  it("the measured made-up answer: `echo $SOME_PORT` (empty, exit 0) backs neither SOME_PORT nor 8080", () => {
    expect(unbacked("Port is 8080 by default if $SOME_PORT is not set", portTask, run("echo $SOME_PORT", 0))).toEqual(["SOME_PORT", "8080"]);
  });

  it("a command that prints its own words backs nothing (`echo SOME_PORT=$SOME_PORT`, a failing `cat config.py`)", () => {
    expect(unbacked("SOME_PORT sets it.", portTask, run('echo "SOME_PORT=$SOME_PORT"', 0, "SOME_PORT="))).toEqual(["SOME_PORT"]);
    expect(unbacked("It is set in config.py.", portTask, run("cat config.py", 1, "cat: config.py: No such file or directory"))).toEqual(["config.py"]);
    expect(unbacked("It is set in config.py.", portTask, event("read_file", { path: "config.py" }, { is_error: true, output: "No file at config.py." }))).toEqual(["config.py"]);
  });

  it("the real answer from the file read: names found, 8421 computed from 8400 + 21", () => {
    expect(unbacked("APP_PORT sets it; unset, the server listens on 8421 (BASE_PORT 8400 + OFFSET 21 in settings.py).", portTask, read("settings.py", settings))).toEqual([]);
    expect(unbacked("`settings.port()` returns APP_PORT or 8421.", portTask, read("settings.py", settings))).toEqual([]);
  });

  it("an answer's own example code may call builtins (`print(…)`, `int(…)`) the run never read", () => {
    expect(unbacked("Run `python3 -c 'import settings; print(int(settings.port()))'`: it prints 8421.", portTask, read("settings.py", settings))).toEqual([]);
  });

  it("a name alone in quotes is a name: Qwen2.5-Coder-1.5B's \"Environment variable 'PORT' …, the default port is 8080\" after a failed read", () => {
    const failed = event("read_file", { path: "port" }, { is_error: true, output: "No file at port." });
    expect(unbacked("Environment variable 'PORT' is not set, and the default port is 8080.", portTask, failed)).toEqual(["PORT", "8080"]);
    expect(answerTokens("the 'default' value, \"as is\"")).toEqual([]);
  });

  it("grep's output backs the name it searched for; a grep that found nothing does not", () => {
    expect(unbacked("APP_PORT sets it.", portTask, run("grep -rn APP_PORT .", 0, './settings.py:8:    return int(os.environ.get("APP_PORT", BASE_PORT + OFFSET))'))).toEqual([]);
    expect(unbacked("APP_PORT sets it.", portTask, run("grep -rn APP_PORT .", 1))).toEqual(["APP_PORT"]);
  });

  it("a number a program printed backs the answer (`python -c 'print(settings.port())'`)", () => {
    expect(unbacked("It listens on 8421.", portTask, run("python3 -c 'import settings; print(settings.port())'", 0, "8421"))).toEqual([]);
    expect(unbacked("It listens on 8080.", portTask, run("python3 -c 'import settings; print(settings.port())'", 0, "8421"))).toEqual(["8080"]);
  });

  it("the person's own words need no backing and back nothing", () => {
    const task = "Does server.py read PORT_NUMBER? What does it default to?";
    expect(unbacked("No: server.py reads APP_PORT, not PORT_NUMBER.", task, read("settings.py", settings))).toEqual([]);
    expect(unbacked("Yes, PORT_NUMBER, default 9000.", task, run("ls", 0, "server.py\nsettings.py"))).toEqual(["9000"]);
  });

  it("ordinary English, product names, line numbers and single digits are not asked for proof", () => {
    const answer =
      "The server is a small Python 3 HTTP server written with the standard library; it serves JSON over HTTP and TCP like any Node.js or TypeScript app would. " +
      "See line 42 of the file; it has 2 functions and is used on macOS and Linux. The value(s) and file(s) are read once.";
    expect(answerTokens(answer)).toEqual([]);
  });

  it("names the audit looks at: underscored, $variables, calls, camelCase, files, names in backticks, numbers", () => {
    const tokens = answerTokens("Set $PORT or `HTTPServer` via load_config() in app/config.yaml; getPort returns 3000, `TIMEOUT` is 1.5s, see 127.0.0.1.");
    expect(tokens.map((token) => `${token.kind}:${token.text}`)).toEqual([
      "file:app/config.yaml",
      "name:PORT",
      "name:load_config",
      "name:getPort",
      "name:HTTPServer",
      "name:TIMEOUT",
      "number:3000",
      "number:1.5",
      "number:127.0.0.1",
    ]);
  });

  it("the ledger rejects the made-up answer and accepts the read one (answerFromWorkspace)", () => {
    const madeUp = new EvidenceLedger();
    madeUp.record(run("echo $SOME_PORT", 0));
    const verdict = madeUp.evaluate(["execution"], "Port is 8080 by default if $SOME_PORT is not set", { answerRequired: true, answerFromWorkspace: { task: portTask } });
    expect(verdict.satisfied).toBe(false);
    expect(verdict.missing).toEqual(["answer"]);
    expect(verdict.claims.map((claim) => [claim.kind, claim.quote])).toEqual([
      ["answer", "SOME_PORT"],
      ["answer", "8080"],
    ]);
    expect(verdict.instruction).toContain("A command that succeeded is not evidence for an answer");
    expect(verdict.instruction).toContain("read_file");
    // Without the option (today's gate) the same answer passed on the echo's exit 0.
    expect(madeUp.evaluate(["execution"], "Port is 8080 by default if $SOME_PORT is not set", { answerRequired: true }).satisfied).toBe(true);

    const honest = new EvidenceLedger();
    const entry = read("settings.py", settings);
    // The log keeps 512 characters; the ledger is given the whole output.
    honest.record({ ...entry, output: entry.output.slice(-40) }, entry.output);
    expect(honest.evaluate(["execution"], "APP_PORT; 8421 when unset (BASE_PORT 8400 + OFFSET 21).", { answerRequired: true, answerFromWorkspace: { task: portTask } }).satisfied).toBe(true);
  });

  it("after a restart, a replayed result whose logged output filled its slot may have lost text: the audit does not judge", () => {
    const ledger = new EvidenceLedger();
    ledger.record(event("read_file", { path: "big.py" }, { output: "x".repeat(512) }));
    expect(ledger.evaluate(["execution"], "It is 8080.", { answerFromWorkspace: { task: portTask } }).satisfied).toBe(true);
  });
});

/** Every question task of the eval: its reference answer, against every file of its project, is accepted. */
describe("the answer audit accepts the eval's reference answers", () => {
  const tasks = fileURLToPath(new URL("../../../../eval/tasks/", import.meta.url));
  const files = (root: string, dir = root): EvidenceEvent[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return files(root, path);
      return [read(path.slice(root.length + 1), readFileSync(path, "utf8"))];
    });
  const questions = readdirSync(tasks).filter((id) => {
    try {
      return (JSON.parse(readFileSync(join(tasks, id, "task.json"), "utf8")) as { category?: string }).category === "question";
    } catch {
      return false;
    }
  });

  it("finds the question tasks", () => expect(questions.length).toBeGreaterThanOrEqual(5));
  for (const id of questions) {
    it(id, () => {
      const task = (JSON.parse(readFileSync(join(tasks, id, "task.json"), "utf8")) as { prompt: string }).prompt;
      const answer = readFileSync(join(tasks, id, "solution", ".eval-answer.txt"), "utf8");
      expect(unbacked(answer, task, ...files(join(tasks, id, "project")))).toEqual([]);
    });
  }
});
