import { describe, expect, it } from "vitest";
import { screenSafeJson } from "@aide/contracts";
import { recordJson } from "./record-json.js";
import { newSessionRecord, type SessionRecord } from "./session-record.js";

function sampleRecord(): SessionRecord {
  const record = newSessionRecord({ id: "s1", user: "u", workspace: "/w", mode: "act", task: "fix \u001b[2J it", max_iterations: 20 }, "2026-12-02T00:00:00.000Z");
  record.system = "You are aide — a coding agent.\u2028Tools: read_file…";
  record.transcript.push(
    { role: "user", content: "task with a bidi \u202E and a tag \u{E0041} and CR\r\nline" },
    { role: "assistant", content: "<read_file>\n<path>a.txt</path>\n</read_file>" },
    { role: "user", content: "[tool result]\u0000\u0085 日本語 😀" },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "b\u200b.txt" } }] },
  );
  return record;
}

describe("recordJson: the session record's stored text, with each transcript message encoded once", () => {
  it("is exactly screenSafeJson of the record, hostile characters included", () => {
    const record = sampleRecord();
    expect(recordJson(record)).toBe(screenSafeJson(record));
  });

  it("stays exact after messages are edited in place, appended, and a native call's arguments change", () => {
    const record = sampleRecord();
    recordJson(record);
    const last = record.transcript[2]!;
    last.content = `${last.content}\n\nWarning: no progress`;
    record.transcript.push({ role: "user", content: "next \u001b]8;;x\u0007" });
    (record.transcript[3]!.tool_calls![0]!.arguments as Record<string, unknown>)["path"] = "changed.txt";
    record.transcript[0]!.role = "system";
    expect(recordJson(record)).toBe(screenSafeJson(record));
    record.transcript.splice(0, 2, { role: "user", content: "[Summary of the earlier conversation]" });
    record.system = `${record.system!.repeat(40)}\u001b[0m (plan mode)`;
    expect(recordJson(record)).toBe(screenSafeJson(record));
    record.system = "short";
    expect(recordJson(record)).toBe(screenSafeJson(record));
  });

  it("leaves out fields whose value is undefined, like JSON.stringify", () => {
    const record = sampleRecord();
    record.paused = undefined;
    record.transcript[1]!.reasoning_content = undefined;
    const text = recordJson(record);
    expect(text).toBe(screenSafeJson(record));
    expect(text).not.toContain('"paused"');
  });
});
