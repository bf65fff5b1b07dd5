import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDescriptor } from "@aide/contracts";
import { decideGate } from "@aide/orchestrator";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/** Every protected surface a write can touch, with the kind its flag must carry. */
const protectedCases: Array<[path: string, kind: string]> = [
  ["AGENTS.md", "agent_instructions"],
  ["packages/web/AGENTS.md", "agent_instructions"],
  ["CLAUDE.md", "agent_instructions"],
  ["docs/CLAUDE.md", "agent_instructions"],
  ["GEMINI.md", "agent_instructions"],
  [".cursorrules", "agent_instructions"],
  [".cursor/rules/style.mdc", "agent_instructions"],
  [".clinerules", "agent_instructions"],
  [".clinerules/01-rules.md", "agent_instructions"],
  [".windsurfrules", "agent_instructions"],
  [".github/copilot-instructions.md", "agent_instructions"],
  [".aider.conf.yml", "agent_instructions"],
  [".mcp.json", "tool_config"],
  [".claude/commands/deploy.md", "tool_config"],
  [".claude/settings.json", "tool_config"],
  [".vscode/extensions.json", "tool_config"],
  [".vscode/tasks.json", "tool_config"],
  [".idea/workspace.xml", "tool_config"],
  [".gitconfig", "tool_config"],
  [".gitmodules", "tool_config"],
  [".gitattributes", "tool_config"],
  ["sub/.gitattributes", "tool_config"],
  [".ripgreprc", "tool_config"],
  [".npmrc", "tool_config"],
  [".envrc", "tool_config"],
  [".git/hooks/pre-commit", "git_internals"],
  [".git/config", "git_internals"],
  ["vendor/lib/.git/config", "git_internals"],
  ["app/.git", "git_internals"],
  ["app/.gitstore/hooks/pre-commit", "git_internals"],
  ["app/.gitstore/config", "git_internals"],
  [".husky/pre-push", "git_internals"],
  [".github/workflows/ci.yml", "ci"],
  [".gitlab-ci.yml", "ci"],
  ["package-lock.json", "lockfile"],
  ["web/yarn.lock", "lockfile"],
  [".bashrc", "shell_rc"],
  ["Makefile", "build_config"],
  ["vitest.config.ts", "build_config"],
  ["src/__snapshots__/a.test.ts.snap", "test_snapshot"],
  // Look-alike letters and invisible characters: protected as what they pose as.
  [".g\u0456t/hooks/pre-commit", "git_internals"],
  ["AG\u0415NTS.md", "agent_instructions"],
  ["CLAUDE\u200B.md", "agent_instructions"],
  [".\uFF4D\uFF43\uFF50.json", "tool_config"],
];

/** Names that deceive a reviewer: flagged `confusable_name` whether or not they pose as a protected one. */
const confusableCases = [
  ".g\u0456t/hooks/pre-commit",
  "AG\u0415NTS.md",
  "CLAUDE\u200B.md",
  "package\u200B.json",
  "src/p\u0430yment.ts",
  "src/\u202Etxt.js",
  "docs/\u0441\u0430\u0445.md",
  "cafe\u0301.txt",
  "docs/\u212Bngstr\u00F6m.md",
];

describe("protected automation and instruction surfaces, over the real tools service and the orchestrator's policy", () => {
  let h: ToolsHarness;
  let writeTool: ToolDescriptor;
  const edits = { edits: true, commands: [] as string[] };
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, stdio: "ignore" });
  beforeAll(async () => {
    h = await startToolsHarness();
    git(h.workspace, "init", "-q");
    mkdirSync(join(h.workspace, "vendor", "lib"), { recursive: true });
    git(join(h.workspace, "vendor", "lib"), "init", "-q");
    // A repository whose .git is a FILE pointing inside the workspace.
    mkdirSync(join(h.workspace, "app"));
    git(join(h.workspace, "app"), "init", "-q");
    renameSync(join(h.workspace, "app", ".git"), join(h.workspace, "app", ".gitstore"));
    writeFileSync(join(h.workspace, "app", ".git"), "gitdir: .gitstore\n");
    writeFileSync(join(h.workspace, "app", ".gitstore", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const list = await h.client.request("agent.tools.list", new TextEncoder().encode("{}"), { timeout: 10_000 });
    const tools = (JSON.parse(new TextDecoder().decode(list.data)) as { result: { tools: ToolDescriptor[] } }).result.tools;
    writeTool = tools.find((tool) => tool.name === "write_file")!;
  });
  afterAll(async () => h?.stop());

  const gate = (preview: never) => decideGate({ descriptor: writeTool, mode: "act", preview, network: "none", autoApprove: edits });

  it("control: an ordinary file is auto-approved by the edits rule, with no flags", async () => {
    const reply = await h.preview("write_file", { path: "src/ordinary.ts", content: "export {};\n" });
    expect(reply.result.protected).toEqual([]);
    expect(gate(reply.result as never)).toEqual({ kind: "auto", reason: "edit_rule" });
  });

  it.each(protectedCases)("%s is flagged %s and never auto-approved by the edits rule", async (path, kind) => {
    const reply = await h.preview("write_file", { path, content: "x\n" });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    expect(reply.result.error).toBeUndefined();
    const flag = reply.result.protected.find((candidate: { kind?: string }) => candidate.kind !== "confusable_name");
    expect(flag, JSON.stringify(reply.result.protected)).toMatchObject({ path, kind });
    expect(flag.reason.length).toBeGreaterThan(10);
    expect(gate(reply.result as never)).toEqual({ kind: "ask", needsProtectedConfirmation: true });
  });

  it.each(confusableCases)("%j is flagged confusable_name and asks", async (path) => {
    const reply = await h.preview("write_file", { path, content: "x\n" });
    expect(reply.result.error).toBeUndefined();
    const flag = reply.result.protected.find((candidate: { kind?: string }) => candidate.kind === "confusable_name");
    expect(flag, JSON.stringify(reply.result.protected)).toMatchObject({ path });
    expect(gate(reply.result as never)).toEqual({ kind: "ask", needsProtectedConfirmation: true });
  });

  it("a package.json scripts change is flagged package_scripts; a name change alone is not", async () => {
    const scripts = await h.preview("write_file", { path: "package.json", content: '{"scripts":{"postinstall":"curl x | sh"}}\n' });
    expect(scripts.result.protected).toEqual([expect.objectContaining({ path: "package.json", kind: "package_scripts" })]);
    expect(gate(scripts.result as never).kind).toBe("ask");
    const plain = await h.preview("write_file", { path: "package.json", content: '{"name":"x"}\n' });
    expect(plain.result.protected).toEqual([]);
  });

  it("a command cannot write the hooks or config of any repository in the workspace, a gitdir-file one included", async () => {
    const hook = join(h.workspace, "app", ".gitstore", "hooks", "pre-commit");
    const attempts = [
      "echo x > .gitstore/hooks/pre-commit",
      "echo x > .gitstore/hooks/post-checkout",
      "echo '[core]' >> .gitstore/config",
      "echo 'gitdir: elsewhere' > .git",
      "echo x > ../.git/hooks/pre-commit",
      "echo x >> ../.git/config",
      "echo x > ../vendor/lib/.git/hooks/pre-commit",
      // Moving a git directory away to plant a new one beside it.
      "mv .gitstore moved-gitstore",
      "mv ../.git ../moved-git",
      "rm -rf .gitstore/hooks",
    ];
    for (const command of attempts) {
      const reply = await h.exec("run_command", { command, cwd: "app" });
      expect(reply.ok, JSON.stringify(reply)).toBe(true);
      expect(reply.result.is_error, `${command}: ${reply.result.output}`).toBe(true);
    }
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(existsSync(join(h.workspace, "app", "moved-gitstore"))).toBe(false);
    expect(existsSync(join(h.workspace, "moved-git"))).toBe(false);
    expect(existsSync(join(h.workspace, "app", ".gitstore", "hooks", "post-checkout"))).toBe(false);
    expect(readFileSync(join(h.workspace, "app", ".git"), "utf8")).toBe("gitdir: .gitstore\n");
    expect(readFileSync(join(h.workspace, ".git", "config"), "utf8")).not.toContain("x\n[");
    // Control: the rest of the git directory and the workspace stay writable (git itself must work).
    const control = await h.exec("run_command", {
      command: "echo ok > .gitstore/description && echo ok > notes.txt && git add notes.txt && git -c user.email=a@example.invalid -c user.name=a commit -qm notes && git log --oneline",
      cwd: "app",
    });
    expect(control.result.is_error, control.result.output).toBe(false);
    expect(readFileSync(join(h.workspace, "app", ".gitstore", "description"), "utf8")).toBe("ok\n");
    expect(control.result.output).toContain("notes");
  });
});
