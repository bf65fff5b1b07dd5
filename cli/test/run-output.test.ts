import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";
import { startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

const main = join(repoRoot, "cli", "dist", "main.js");
const replies = [
  { text: "Updating the README.\n<write_file>\n<path>README.md</path>\n<content>\n# hello\nsecond line\n</content>\n</write_file>" },
  { text: "<run_command>\n<command>seq 1 40</command>\n</run_command>" },
  ...Array.from({ length: 4 }, () => ({ text: "<attempt_completion>\n<result>README.md updated; seq printed 40 lines.</result>\n</attempt_completion>" })),
];

/** `aide run` as a process: through pipes, or through a pseudo-terminal (`script`) for colour. */
function aideRun(args: string[], env: Record<string, string>, pty = false): Promise<{ code: number | null; stdout: string }> {
  const argv = [process.execPath, main, "run", ...args];
  const quoted = argv.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  const child = pty ? spawn("script", ["-qfec", quoted, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] }) : spawn(argv[0], argv.slice(1), { env, stdio: ["pipe", "pipe", "pipe"] });
  if (!pty) child.stdin.end();
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout })));
}

/** Issue 13 item 5: an edit as a unified diff (coloured on a terminal), long output collapsed unless --verbose. */
describe("aide run shows edits as diffs and collapses long tool output", () => {
  let root: string;
  let workspace: string;
  let home: string;
  let stack: StackProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-run-output-"));
    workspace = join(root, "project");
    home = join(root, "home");
    mkdirSync(workspace, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(workspace, "README.md"), "# hello\nold line\n");
    const transcript = join(root, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ replies }));
    const models = join(root, "models.json");
    writeFileSync(models, JSON.stringify({ default: "s", models: [{ id: "s", provider: "scripted", transcript, contextBudget: 32_768 }] }));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace, "--models-config", models] });
    env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, TERM: "xterm" };
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const policy = ["--workspace", () => workspace, "--auto-approve", "edits", "--allow-command", "seq 1 40", "--deny-rest"] as const;
  const flags = () => policy.map((part) => (typeof part === "function" ? part() : part));

  it("without a terminal: the diff in plain text, the output cut to its first lines with a marker, no ANSI", async () => {
    writeFileSync(join(workspace, "README.md"), "# hello\nold line\n");
    const { stdout } = await aideRun(["update the readme and run seq", ...flags()], env);
    if (process.env.AIDE_TEST_DUMP) writeFileSync(process.env.AIDE_TEST_DUMP, stdout);
    expect(stdout).toContain("-old line");
    expect(stdout).toContain("+second line");
    expect(stdout).not.toContain('"sha256"');
    expect(stdout).toContain("    5\n");
    expect(stdout).not.toContain("    7\n");
    expect(stdout).toContain("… 35 more lines (--verbose)");
    expect(stdout).not.toContain("\u001b[");
  }, 90_000);

  it("--verbose shows the whole output", async () => {
    writeFileSync(join(workspace, "README.md"), "# hello\nold line\n");
    const { stdout } = await aideRun(["update the readme and run seq", ...flags(), "--verbose"], env);
    expect(stdout).toContain("    40\n");
    expect(stdout).not.toContain("(--verbose)");
  }, 90_000);

  it("on a terminal the diff is coloured; NO_COLOR turns colour off", async () => {
    writeFileSync(join(workspace, "README.md"), "# hello\nold line\n");
    const coloured = await aideRun(["update the readme and run seq", ...flags()], env, true);
    expect(coloured.stdout).toContain("\u001b[31m-old line\u001b[39m");
    expect(coloured.stdout).toContain("\u001b[32m+second line\u001b[39m");
    writeFileSync(join(workspace, "README.md"), "# hello\nold line\n");
    const plain = await aideRun(["update the readme and run seq", ...flags()], { ...env, NO_COLOR: "1" }, true);
    expect(plain.stdout).toContain("-old line");
    expect(plain.stdout).not.toContain("\u001b[31m");
  }, 120_000);

  it("--json is the events as the bus carries them: the output preview as fields, no write body, no ANSI", async () => {
    writeFileSync(join(workspace, "README.md"), "# hello\nold line\n");
    const { stdout } = await aideRun(["update the readme and run seq", ...flags(), "--json"], env);
    const events = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; payload?: Record<string, any> });
    const completed = events.filter((e) => e.type === "tool.completed");
    expect(completed.find((e) => e.payload?.tool === "run_command")?.payload).toMatchObject({ output_lines: 42, output_preview: expect.stringContaining("\n40\n") });
    // The diff is the terminal's own fetch from the checkpoints; events never carry a write body.
    expect(stdout).not.toContain("second line");
    expect(stdout).not.toContain("\u001b[");
  }, 90_000);
});
