import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostileStrings } from "../../../contracts/test/hostile-strings.js";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/** What must never leave the tools service raw: NUL, C0 but tab/LF/CR, DEL, C1 (ESC included). */
const rawControl = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
const rawInvisible = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

describe("bytes that leave the tools service are safe for a model and a screen", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
    // A NUL would make read_file call the file binary; the NUL case is covered by run_command below.
    writeFileSync(join(h.workspace, "hostile.txt"), hostileStrings.map((entry) => entry.text.replace(/\u0000/g, "")).join("\n") + "\n");
    writeFileSync(join(h.workspace, "windows.txt"), "one\r\ntwo\tcolumn\r\n");
  });
  afterAll(async () => h?.stop());

  const expectSafe = (output: string) => {
    expect(output).not.toMatch(rawControl);
    expect(output).not.toMatch(rawInvisible);
  };

  it("run_command output: ESC, NUL, BEL, BS and C1 become visible tokens; tab, newline and CR stay", async () => {
    const reply = await h.exec("run_command", { command: "printf 'a\\033]8;;http://evil/\\007link\\033[2J b\\000c\\bd\\302\\233e\\tf\\r\\n'" });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    const output: string = reply.result.output;
    expectSafe(output);
    expect(output).toContain("a⟨ESC⟩]8;;http://evil/⟨BEL⟩link⟨ESC⟩[2J b⟨NUL⟩c⟨BS⟩d⟨U+009B⟩e\tf\r\n");
    expect(reply.result.metadata.escaped_characters).toMatchObject({ escape: 2, control: 3, c1: 1 });
  });

  it("run_command output of every hostile string is safe", async () => {
    const reply = await h.exec("run_command", { command: "cat hostile.txt" });
    expectSafe(reply.result.output);
    expect(reply.result.output).toContain("⟨U+202E⟩");
  });

  it("read_file content is safe, with CRLF and tabs kept", async () => {
    const hostile = await h.exec("read_file", { path: "hostile.txt" });
    expect(hostile.result.is_error).toBe(false);
    expectSafe(hostile.result.output);
    expect(hostile.result.output).toContain("rm -rf ~⟨ESC⟩[2J⟨ESC⟩[Hnpm test");
    const windows = await h.exec("read_file", { path: "windows.txt" });
    expect(windows.result.output).toContain("two\tcolumn");
  });

  it("process_start and process_poll reports are safe", async () => {
    const started = await h.exec("process_start", { command: "printf 'start\\033[31mred\\n'; sleep 0.2; printf 'later\\033]52;c;eA==\\007\\n'" });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    expectSafe(started.result.output);
    const id = /\b(p\d+)\b/.exec(started.result.output)?.[1] ?? started.result.metadata.id;
    const polled = await h.exec("process_poll", { id, wait_ms: 10_000 });
    expectSafe(polled.result.output);
    expect(`${started.result.output}\n${polled.result.output}`).toContain("later⟨ESC⟩]52;c;eA==⟨BEL⟩");
  });
});
