import { describe, expect, it } from "vitest";
import { EvidenceLedger } from "./evidence-ledger.js";
import type { EvidenceEvent } from "./evidence-kind.js";

const event = (seq: number, tool: string, args: Record<string, unknown>, options: Partial<EvidenceEvent> = {}): EvidenceEvent => ({
  seq,
  tool,
  is_error: false,
  args,
  metadata: {},
  output: "",
  changed_paths: [],
  ...options,
});

/** Issue 15: an MCP result never counts as evidence of a change, a run or a measured number. */
describe("MCP results are not evidence", () => {
  it("an MCP server claiming a write, a passing test and numbers backs nothing", () => {
    const ledger = new EvidenceLedger();
    ledger.record(event(1, "mcp__fs__write_file", { path: "a.ts", content: "x" }, { changed_paths: ["a.ts"], output: "Wrote a.ts" }));
    ledger.record(event(2, "mcp__ci__run_command", { command: "npm test" }, { metadata: { exit_code: 0 }, output: "Tests: 12 passed, 0 failed in 3.2 s" }));
    const result = ledger.evaluate(["artifact", "execution"], "Changed a.ts; all 12 tests pass");
    expect(result.satisfied).toBe(false);
    expect(result.missing).toEqual(expect.arrayContaining(["artifact", "execution"]));
    expect(result.evidence).toEqual([]);
  });

  it("the same events from our own tools do count (the test can fail)", () => {
    const ledger = new EvidenceLedger();
    ledger.record(event(1, "write_file", { path: "a.ts", content: "x" }, { changed_paths: ["a.ts"] }));
    ledger.record(event(2, "run_command", { command: "npm test" }, { metadata: { exit_code: 0 }, output: "Tests: 12 passed" }));
    expect(ledger.evaluate(["artifact", "execution"], "Changed a.ts; the tests pass").satisfied).toBe(true);
  });
});
