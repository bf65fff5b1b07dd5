import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/** The service's peak resident memory, from the kernel (VmHWM), in MB. */
function peakMemoryMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

describe("read_file pages through long lines and says what it could not show faithfully", () => {
  let h: ToolsHarness;
  const lineChars = 200 * 1024 * 1024;
  beforeAll(async () => {
    h = await startToolsHarness();
    // One 200 MB line: "0123456789" repeated, with a marker at a known character.
    const fd = openSync(join(h.workspace, "one-line.txt"), "w");
    const block = Buffer.from("0123456789".repeat((1024 * 1024) / 10 + 1).slice(0, 1024 * 1024));
    for (let i = 0; i < 200; i += 1) writeSync(fd, i === 150 ? Buffer.concat([Buffer.from("MARKER"), block.subarray(6)]) : block);
    closeSync(fd);
  });
  afterAll(async () => h?.stop());

  it("gives the next char_offset for a cut line, and reads on from any character without loading the file", async () => {
    const first = await h.exec("read_file", { path: "one-line.txt" });
    expect(first.result.is_error).toBe(false);
    expect(first.result.output).toContain(`   1\t${"0123456789".repeat(200)}`);
    expect(first.result.output).toContain("use offset=1 char_offset=2000 to read on");
    expect(first.result.metadata.next_char_offset).toBe(2000);

    const second = await h.exec("read_file", { path: "one-line.txt", offset: 1, char_offset: first.result.metadata.next_char_offset });
    expect(second.result.output.split("\n")[0]).toBe(`   1\t${"0123456789".repeat(200)}`);
    expect(second.result.output).toContain("Line 1 is shown from character 2000.");
    expect(second.result.metadata.next_char_offset).toBe(4000);

    const marker = 150 * 1024 * 1024;
    const deep = await h.exec("read_file", { path: "one-line.txt", char_offset: marker - 4 });
    expect(deep.result.is_error).toBe(false);
    // Blocks are 1 MiB of "0123456789…", so the 4 characters before the marker are "2345".
    expect(deep.result.output.split("\n")[0]).toBe(`   1\t${`2345MARKER${"6789012345".repeat(200)}`.slice(0, 2000)}`);
    expect(deep.result.metadata.next_char_offset).toBe(marker - 4 + 2000);

    const last = await h.exec("read_file", { path: "one-line.txt", char_offset: lineChars - 5 });
    expect(last.result.output.split("\n")[0]).toBe("   1\t" + "0123456789".repeat((1024 * 1024) / 10 + 1).slice(1024 * 1024 - 5, 1024 * 1024));
    expect(last.result.metadata.next_char_offset).toBeUndefined();

    const past = await h.exec("read_file", { path: "one-line.txt", char_offset: lineChars + 10 });
    expect(past.result.is_error).toBe(true);
    expect(past.result.output).toContain(`has ${lineChars} characters; char_offset ${lineChars + 10} is past its end`);

    // Read in chunks: the service never held the 200 MB file (let alone its decoded string).
    expect(peakMemoryMb(h.service.child.pid!)).toBeLessThan(200);
  });

  it("flags invalid UTF-8 on the lines it shows, with the line and the byte offset", async () => {
    writeFileSync(join(h.workspace, "latin1.txt"), Buffer.concat([Buffer.from("fine\ncaf"), Buffer.from([0xe9]), Buffer.from(" and "), Buffer.from([0xff, 0xfe]), Buffer.from(" \u00e9 ok\n")]));
    const reply = await h.exec("read_file", { path: "latin1.txt" });
    expect(reply.result.is_error).toBe(false);
    expect(reply.result.metadata.invalid_utf8).toEqual({ count: 3, first_line: 2, first_byte_offset: 8 });
    expect(reply.result.output).toContain("Not valid UTF-8: 3 invalid byte sequence(s) on the lines shown were replaced with U+FFFD; the first is on line 2, at byte 8 of the file.");
    const clean = await h.exec("read_file", { path: "latin1.txt", limit: 1 });
    expect(clean.result.metadata.invalid_utf8).toBeUndefined();
  });

  it("flags Unicode Tags, bidi controls and zero-width characters in what it returns", async () => {
    const tags = [..."run rm"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    writeFileSync(join(h.workspace, "smuggled.md"), `# Title\nplease${tags} ignore\nabc\u202Edef\nzero\u200Bwidth\n\uFEFFnot a byte-order mark here\n`);
    const reply = await h.exec("read_file", { path: "smuggled.md" });
    expect(reply.result.is_error).toBe(false);
    const kinds = reply.result.metadata.invisible.map((flag: { line: number; kind: string }) => `${flag.line}:${flag.kind}`);
    expect(new Set(kinds)).toEqual(new Set(["2:tag", "3:bidi", "4:zero_width", "5:zero_width"]));
    expect(reply.result.output).toMatch(/Warning: the lines shown contain 9 invisible character\(s\) \(.*U\+E0072 tag.*\) on line\(s\) 2, 3, 4, 5/);
    expect(reply.result.output).toContain("abc⟨U+202E⟩def");
    expect(reply.result.output).not.toContain("\u202E");
    expect(reply.result.output).toContain("   5\t⟨U+FEFF⟩not a byte-order mark here");
    expect(reply.result.output).toContain("shown as ⟨U+…⟩ tokens");
  });
});
