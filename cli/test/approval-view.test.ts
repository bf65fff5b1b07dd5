import { describe, expect, it } from "vitest";
import { renderForScreen } from "@aide/contracts";
import { rawControlPattern } from "../../contracts/test/hostile-strings.js";
import { describeApproval } from "../src/client/approval-view.js";
import { createStyle } from "../src/client/terminal-style.js";

const style = createStyle(false);
const raw = "npm test \u001b]52;c;Y3VybA==\u0007\u202Ex";

describe("the terminal's approval", () => {
  it("shows the command as its screen form and never the raw bytes under raw_base64", () => {
    const base64 = Buffer.from(raw, "utf8").toString("base64");
    const text = describeApproval(
      { approval: "a1", tool: "run_command", command: renderForScreen(raw), paths: ["."], escapes: { count: 4, kinds: { escape: 1, control: 1, bidi: 1 } }, raw_base64: { command: base64 } } as never,
      style,
    );
    expect(text).toContain("$ npm test ⟨ESC⟩]52;c;Y3VybA==⟨BEL⟩⟨U+202E⟩x");
    expect(text).toContain("⚠ 4 hidden/control characters");
    expect(text).not.toContain(base64);
    expect(text).not.toMatch(rawControlPattern);
  });

  it("flags an MCP call whose server's tool descriptions held hidden characters", () => {
    const text = describeApproval(
      {
        approval: "a2",
        tool: "mcp__poisoned__lookup",
        command: 'MCP server "poisoned" tool "lookup" arguments {"word":"x"}',
        mcp: { server: "poisoned", tool: "lookup", arguments_json: '{"word":"x"}', hidden_characters: 44 },
      },
      style,
    );
    expect(text).toContain("MCP SERVER");
    expect(text).toContain("poisoned: ⚠ its tool descriptions hold 44 hidden/control characters (tool poisoning?)");
    const clean = describeApproval({ approval: "a3", tool: "mcp__docs__search", command: "MCP server", mcp: { server: "docs", tool: "search", arguments_json: "{}" } }, style);
    expect(clean).not.toContain("MCP SERVER");
  });
});
