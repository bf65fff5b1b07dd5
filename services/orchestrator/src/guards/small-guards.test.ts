import { describe, expect, it } from "vitest";
import { decodeEscapedNewlines } from "./escaped-newlines.js";
import { dedupeCommands } from "./dedupe-commands.js";
import { StallDetector } from "./stall-detector.js";
import { MistakeCounter, NO_TOOL_CALL_NUDGE } from "./mistake-counter.js";

describe("decodeEscapedNewlines", () => {
  it("decodes a one-line source file with several literal \\n", () => {
    const result = decodeEscapedNewlines("def f():\\n    return 1\\n\\nprint(f())", "main.py");
    expect(result).toEqual({ content: "def f():\n    return 1\n\nprint(f())\n", decoded: true });
  });

  it("decodes a fully JSON-escaped body, keeping escaped newlines inside strings", () => {
    const result = decodeEscapedNewlines('print(\\"a\\\\nb\\")\\nx = 1\\ny = 2\\n', "a.py");
    expect(result).toEqual({ content: 'print("a\\nb")\nx = 1\ny = 2\n', decoded: true });
  });

  it("falls back to layout escapes when quotes are bare", () => {
    const result = decodeEscapedNewlines('const a = "x";\\nconst b = "\\\\n";\\nconsole.log(a, b);\\n', "a.js");
    expect(result).toEqual({ content: 'const a = "x";\nconst b = "\\\\n";\nconsole.log(a, b);\n', decoded: true });
  });

  it("leaves files alone when the escapes are not clearly layout", () => {
    const withRealNewlines = 'print("a\\nb")\nprint("c\\nd\\ne")\n';
    expect(decodeEscapedNewlines(withRealNewlines, "a.py")).toEqual({ content: withRealNewlines, decoded: false });
    expect(decodeEscapedNewlines('print("a\\nb")', "a.py").decoded).toBe(false);
    expect(decodeEscapedNewlines("a\\nb\\nc\\nd", "notes.md").decoded).toBe(false);
    expect(decodeEscapedNewlines("a\\nb\\nc\\nd", "data.json").decoded).toBe(false);
  });
});

describe("dedupeCommands", () => {
  it("drops repeated commands in a batch, keeping order and other calls", () => {
    const calls = [
      { name: "run_command", arguments: { command: "npm test" }, id: "1" },
      { name: "read_file", arguments: { path: "a" }, id: "2" },
      { name: "run_command", arguments: { command: "npm  test" }, id: "3" },
      { name: "read_file", arguments: { path: "a" }, id: "4" },
      { name: "run_command", arguments: { command: "npm run lint" }, id: "5" },
    ];
    const { kept, dropped } = dedupeCommands(calls);
    expect(kept.map((call) => call.id)).toEqual(["1", "2", "4", "5"]);
    expect(dropped.map((call) => call.id)).toEqual(["3"]);
  });
});

describe("StallDetector", () => {
  it("reports a stall after N turns with no change and repeated reads", () => {
    const detector = new StallDetector(3);
    expect(detector.observe({ changedPaths: [], readPaths: ["a.ts"] }).stalled).toBe(false);
    expect(detector.observe({ changedPaths: [], readPaths: ["a.ts"] }).stalled).toBe(false);
    expect(detector.observe({ changedPaths: [], readPaths: ["./a.ts"] }).stalled).toBe(false);
    const verdict = detector.observe({ changedPaths: [], readPaths: [] });
    expect(verdict.stalled).toBe(true);
    expect(verdict.reason).toContain("a.ts");
  });

  it("resets on a workspace change or on reading something new", () => {
    const detector = new StallDetector(2);
    detector.observe({ changedPaths: [], readPaths: ["a"] });
    detector.observe({ changedPaths: [], readPaths: ["a"] });
    expect(detector.observe({ changedPaths: ["a"], readPaths: ["a"] }).stalled).toBe(false);
    expect(detector.observe({ changedPaths: [], readPaths: ["a"] }).stalled).toBe(false);
    expect(detector.observe({ changedPaths: [], readPaths: ["b"] }).stalled).toBe(false);
    expect(detector.observe({ changedPaths: [], readPaths: ["a"] }).stalled).toBe(false);
    expect(detector.observe({ changedPaths: [], readPaths: ["b"] }).stalled).toBe(true);
  });

  it("does not call turns without any re-read a stall", () => {
    const detector = new StallDetector();
    for (let turn = 0; turn < 6; turn += 1) expect(detector.observe({ changedPaths: [], readPaths: [] }).stalled).toBe(false);
  });
});

describe("MistakeCounter", () => {
  it("exceeds the limit at the third consecutive mistake, and a success resets it", () => {
    const counter = new MistakeCounter();
    expect(counter.recordMistake()).toEqual({ exceeded: false, count: 1 });
    expect(counter.recordMistake()).toEqual({ exceeded: false, count: 2 });
    counter.recordSuccess();
    expect(counter.recordMistake().exceeded).toBe(false);
    expect(counter.recordMistake().exceeded).toBe(false);
    expect(counter.recordMistake()).toEqual({ exceeded: true, count: 3 });
  });

  it("nudges once for a reply without a tool call, then fails", () => {
    const counter = new MistakeCounter();
    expect(counter.noToolCall()).toEqual({ action: "nudge", message: NO_TOOL_CALL_NUDGE });
    expect(counter.noToolCall().action).toBe("fail");
  });

  it("nudges again after a successful call", () => {
    const counter = new MistakeCounter();
    counter.noToolCall();
    counter.recordSuccess();
    expect(counter.noToolCall().action).toBe("nudge");
  });
});
