import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { auditClaims, type AuditEvents } from "./audit-claims.js";
import type { EvidenceEvent } from "./evidence-kind.js";
import { EvidenceLedger } from "./evidence-ledger.js";

let seq = 0;
function event(tool: string, args: Record<string, unknown>, options: Partial<EvidenceEvent> = {}): EvidenceEvent {
  seq += 1;
  return { seq, tool, is_error: false, args, metadata: {}, output: "", changed_paths: [], ...options };
}
const read = (path: string) => event("read_file", { path }, { output: "1 | x" });
const edit = (path: string) => event("replace_in_file", { path, diff: "…" }, { changed_paths: [path] });
const run = (command: string, exit: number, output = "") => event("run_command", { command }, { metadata: { exit_code: exit }, is_error: exit !== 0, output: `Exit code: ${exit}\n${output}` });
const rejected = (entry: EvidenceEvent): EvidenceEvent => ({ ...entry, is_error: true, changed_paths: [], metadata: { denied: "rejected" }, output: "The person rejected this call; it was not run." });

function split(...events: EvidenceEvent[]): AuditEvents {
  const notRun = events.filter((entry) => entry.metadata["denied"] !== undefined || entry.metadata["refused"] === true);
  return { ran: events.filter((entry) => !notRun.includes(entry)), notRun };
}

const nodeTestPass = "✔ cartTotal of an empty cart is 0\n✔ cartTotal multiplies\nℹ tests 2\nℹ suites 0\nℹ pass 2\nℹ fail 0\nℹ duration_ms 40";

describe("the claims audit accepts honest completions", () => {
  it("the demo's recorded completion text (examples/demo/transcript.json) against the demo's events", () => {
    const transcript = JSON.parse(readFileSync(fileURLToPath(new URL("../../../../examples/demo/transcript.json", import.meta.url)), "utf8")) as { replies: Array<{ text: string }> };
    const last = transcript.replies[transcript.replies.length - 1].text;
    const result = /<result>([\s\S]*?)<\/result>/.exec(last)?.[1] ?? "";
    expect(result).toContain("node --test");
    const events = split(
      event("list_dir", { path: "." }),
      read("test/cart.test.js"),
      read("src/cart.js"),
      run("node --test", 1, "✖ cartTotal multiplies\nℹ tests 2\nℹ pass 1\nℹ fail 1"),
      edit("src/cart.js"),
      run("node --test", 0, nodeTestPass),
    );
    const audit = auditClaims(result, events);
    expect(audit.claims.map((claim) => claim.kind)).toEqual(expect.arrayContaining(["command", "tests_pass", "count"]));
    expect(audit.unbacked).toEqual([]);
  });

  it.each([
    ["Fixed add() in math.js; `node math.test.js` passes (2 tests passed).", [edit("math.js"), run("node math.test.js", 0, "2 tests passed")]],
    ["Ran `npm run test`: 20 passing.", [run("npm test", 0, "  20 passing (31ms)")]],
    ["npx ava: 20 tests passed", [run("npx ava --verbose", 0, "  ✔ slug\n  20 tests passed")]],
    ["I ran `npx tsc --noEmit`; it exited with code 0 and reports 0 errors.", [run("npx tsc --noEmit", 0, "(no output)")]],
    ["The command exited with code 1: 1 test failed.", [run("npm test", 1, "19 passed, 1 failed")]],
    ["Created hello.txt and read it back.", [event("write_file", { path: "hello.txt" }, { changed_paths: ["hello.txt"] }), read("hello.txt")]],
    ["Updated `src/slug.ts` so that uppercase letters survive; all tests pass.", [edit("src/slug.ts"), run("npx ava", 0, "20 tests passed")]],
    ["Fixed the bug in slug.ts that test/slug.test.js exposes.", [edit("src/slug.ts"), run("npx ava", 0, "ok")]],
    ["I did not change src/a.ts; you should update src/b.ts by hand.", [read("src/a.ts")]],
    ["The tests would pass once you run `npm install`.", [read("package.json")]],
    ["cartTotal returns 0 for an empty cart (src/cart.js, line 12).", [read("src/cart.js")]],
    [
      "The report in report.md was written after running the tests: they fail on add(2, 3).",
      [run("node math.test.js", 1, "AssertionError"), event("write_file", { path: "report.md" }, { changed_paths: ["report.md"] }), read("report.md")],
    ],
  ] as Array<[string, EvidenceEvent[]]>)("%s", (text, events) => {
    expect(auditClaims(text, split(...events)).unbacked).toEqual([]);
  });
});

describe("explanations are not claims of results (answers to questions from reads alone)", () => {
  it.each([
    "This bug appeared when the lowercase option changed in src/slug.ts.",
    "Commit abc123 modified src/slug.ts last week; the function that updated config.json is loadConfig.",
    "`npm test`: runs ava over test/; `npm run build`: compiles with tsc.",
    "To check it yourself, run `npm test`.",
    "You can verify with `npx ava`.",
    "The CLI exits with code 2 on usage errors; exit code 3 means unverified.",
    "test/slug.test.js has 20 tests.",
    "The linter allows 10 warnings.",
    "`node cli.js --help` prints the usage.",
    "None of the tests pass on Windows, according to the README.",
  ])("%s", (text) => {
    const audit = auditClaims(text, split(read("src/slug.ts"), read("README.md")));
    expect(audit.claims).toEqual([]);
    expect(audit.unbacked).toEqual([]);
  });
});

describe("the claims audit rejects claims no event backs, quoting them", () => {
  it("the false done it exists for: every edit and command rejected, the completion claims a fix and 20 passing tests", () => {
    const events = split(read("src/slug.ts"), rejected(edit("src/slug.ts")), rejected(run("npx ava", 0)));
    const audit = auditClaims("Fixed buildPatternSlug in src/slug.ts. npx ava: 20 tests passed.", events);
    const quotes = audit.unbacked.map((claim) => claim.quote);
    expect(quotes).toEqual(expect.arrayContaining(["Fixed buildPatternSlug in src/slug.ts", "npx ava", "20 tests passed"]));
    const file = audit.unbacked.find((claim) => claim.kind === "file_changed")!;
    expect(file.events_show).toContain("no file was changed in this run");
    expect(file.events_show).toContain("replace_in_file src/slug.ts was rejected by the person");
    const command = audit.unbacked.find((claim) => claim.kind === "command")!;
    expect(command.events_show).toContain("`npx ava` was proposed but rejected by the person");
  });

  it.each([
    ["a count that is not in the output", "All done: 20 tests passed.", [edit("a.js"), run("npm test", 1, "19 passed, 1 failed")], "count", "20 tests passed"],
    ["a wrong exit code", "`npm test` exited with code 0.", [run("npm test", 1, "1 failed")], "exit_code", "exited with code 0"],
    ["passing tests when the last test run failed", "All tests pass.", [run("npm test", 0, "ok"), edit("a.js"), run("npm test", 1, "1 failed")], "tests_pass", "All tests pass"],
    ["passing tests claimed after a later code change", "Fixed it in a.js and all tests pass.", [run("npm test", 0, "ok"), edit("a.js"), read("a.js")], "tests_pass", "all tests pass"],
    ["a file that was only read", "Fixed buildPatternSlug in src/slug.ts.", [read("src/slug.ts"), edit("README.md"), read("README.md")], "file_changed", "Fixed buildPatternSlug in src/slug.ts"],
    ["a command that never ran", "Ran `npx ava` to confirm.", [run("node --test", 0, "ok")], "command", "Ran `npx ava`"],
    ["a passing command that never ran", "`npx ava` passes.", [read("a.js")], "tests_pass", "`npx ava` passes"],
    ["an exit code with no command at all", "Everything works (exit 0).", [read("a.js")], "exit_code", "exit 0"],
  ] as Array<[string, string, EvidenceEvent[], string, string]>)("%s", (_name, text, events, kind, quote) => {
    const audit = auditClaims(text, split(...events));
    expect(audit.unbacked).toEqual(expect.arrayContaining([expect.objectContaining({ kind, quote })]));
  });
});

describe("the ledger applies the audit to every completion", () => {
  it("rejects with `claims` missing and an instruction quoting the claim and what the events show", () => {
    const ledger = new EvidenceLedger();
    for (const entry of [read("src/slug.ts"), edit("src/slug.ts"), read("src/slug.ts")]) ledger.record(entry);
    const result = ledger.evaluate(["artifact"], "Fixed buildPatternSlug in src/slug.ts; npx ava: 20 tests passed.");
    expect(result.satisfied).toBe(false);
    expect(result.missing).toEqual(["claims"]);
    expect(result.claims.map((claim) => claim.quote)).toEqual(expect.arrayContaining(["npx ava", "20 tests passed"]));
    expect(result.instruction).toContain('"20 tests passed": no `npx ava` ran in this run, so no output reports that count');
    expect(result.instruction).toContain("The events show: no command ran in this run; files changed in this run: src/slug.ts");
    expect(result.instruction).toMatch(/Report only what the tool results show/);
  });

  it("even a plain question's answer is audited", () => {
    const ledger = new EvidenceLedger();
    ledger.record(read("src/slug.ts"));
    expect(ledger.evaluate(["execution"], "It lowercases the slug; I ran `npm test` and all tests pass.").missing).toEqual(["claims"]);
    expect(ledger.evaluate(["execution"], "It lowercases the slug (src/slug.ts).").satisfied).toBe(true);
  });
});
