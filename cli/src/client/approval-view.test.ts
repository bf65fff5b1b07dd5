import { describe, expect, it } from "vitest";
import { describeApproval } from "./approval-view.js";
import { createStyle } from "./terminal-style.js";

describe("describeApproval of a command that runs a workspace script", () => {
  it("shows the script text and the allow rule bound to its digest", () => {
    const digest = "e".repeat(64);
    const text = describeApproval(
      { approval: "a1", tool: "run_command", command: "npm test", scripts: [{ source: "package.json", name: "test", text: 'node -e "x"' }], scripts_digest: digest },
      createStyle(false),
    );
    expect(text).toContain("runs test from package.json:");
    expect(text).toContain('| node -e "x"');
    expect(text).toContain(`--allow-command 'npm test sha256:${digest}'`);
  });

  it("offers no rule without a well-formed digest", () => {
    const text = describeApproval(
      { approval: "a1", tool: "run_command", command: "npm test", scripts: [{ source: "package.json", name: "test", text: "x" }], scripts_digest: "not-a-digest" },
      createStyle(false),
    );
    expect(text).not.toContain("--allow-command");
  });
});
