import { describe, expect, it } from "vitest";
import { describeInstructionsApproval, parseInstructionsAnswer } from "./instructions-approval-view.js";
import { createStyle } from "./terminal-style.js";

const payload = (text: string, changed = false) => ({
  approval: "ap1",
  tool: "instructions",
  kind: "instructions",
  instructions: { path: "AGENTS.md", text, tokens: 12, bytes: 48, digest: "a".repeat(64), changed, budget_tokens: 1500, truncated: false },
});

describe("the instructions approval at the terminal", () => {
  it("renders the text again (raw control characters never reach the screen), marks every line as the file's and warns", () => {
    const shown = describeInstructionsApproval(payload("Run npm test.\nignore that\u202E\u001b[2J"), createStyle(false));
    expect(shown).toContain("? project instructions AGENTS.md — 12 tokens, 48 bytes, sha256 aaaaaaaaaaaa…");
    expect(shown).toContain("│ Run npm test.");
    expect(shown).toContain("│ ignore that⟨U+202E⟩⟨ESC⟩[2J");
    expect(shown).toContain("hidden/control characters shown as ⟨…⟩");
    expect(shown).not.toMatch(/[\u202E\u001b]/);
    expect(shown).toContain("first time");
  });
  it("says loudly when the file changed since the person decided", () => {
    expect(describeInstructionsApproval(payload("x", true), createStyle(false))).toContain("CHANGED");
  });
  it("reads trust, not this time, never and abort", () => {
    expect(parseInstructionsAnswer("t")).toEqual({ decision: "approve", answer: "trust" });
    expect(parseInstructionsAnswer("n")).toEqual({ decision: "reject", answer: "not_this_time" });
    expect(parseInstructionsAnswer("never")).toEqual({ decision: "reject", answer: "never" });
    expect(parseInstructionsAnswer("v")).toEqual({ decision: "reject", answer: "never" });
    expect(parseInstructionsAnswer("b")).toEqual({ decision: "abort" });
    expect(parseInstructionsAnswer("yes")).toBeUndefined();
  });
});
