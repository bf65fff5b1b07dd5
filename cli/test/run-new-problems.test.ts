import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aideRun } from "../../tests/helpers/aide-run.js";
import { startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

const ids = 'type Id = number;\nconst legacy: number = "old";\nexport const first: Id = 1;\n';
const replace = "<replace_in_file>\n<path>src/ids.ts</path>\n<diff>\n<<<<<<< SEARCH\ntype Id = number;\n=======\ntype Id = string;\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>";
const replies = [
  { text: `Changing the id type.\n${replace}` },
  { text: "<read_file>\n<path>src/ids.ts</path>\n</read_file>" },
  ...Array.from({ length: 4 }, () => ({ text: "<attempt_completion>\n<result>Id is a string now.</result>\n</attempt_completion>" })),
];

/** Issue 16: the problems an edit introduced, from tool.completed metadata, under the edit's diff. */
describe("aide run shows an edit's new problems under its diff", () => {
  let root: string;
  let workspace: string;
  let stack: StackProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-run-problems-"));
    workspace = join(root, "project");
    const home = join(root, "home");
    mkdirSync(join(workspace, "src"), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(workspace, "tsconfig.json"), '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022" }, "include": ["src"] }\n');
    writeFileSync(join(workspace, "src/ids.ts"), ids);
    const transcript = join(root, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ replies }));
    const models = join(root, "models.json");
    writeFileSync(models, JSON.stringify({ default: "s", models: [{ id: "s", provider: "scripted", transcript, contextBudget: 32_768 }] }));
    // The edit waits for a cold checker on a loaded machine rather than saying "not ready" (aide up passes the setting to the tools service).
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace, "--models-config", models], env: { AIDE_TOOLS_DIAGNOSTICS_WAIT_MS: "20000" } });
    env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, TERM: "xterm" };
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("the diff, then the one new TypeScript problem (not the file's old one), concise", async () => {
    const { stdout } = await aideRun(["make Id a string", "--workspace", workspace, "--auto-approve", "edits", "--deny-rest"], env);
    if (process.env.AIDE_TEST_DUMP) writeFileSync(process.env.AIDE_TEST_DUMP, stdout);
    const diff = stdout.indexOf("+type Id = string;");
    const heading = stdout.indexOf("    1 new problem (typescript):\n      src/ids.ts:3:14 TS2322 Type 'number' is not assignable to type 'string'.\n");
    expect(diff, stdout).toBeGreaterThan(0);
    expect(heading, stdout).toBeGreaterThan(diff);
    expect(stdout).not.toContain("src/ids.ts:2:7");
    // Said once, under the diff (the note the model reads is not repeated in the output lines).
    expect(stdout.split("TS2322").length - 1).toBe(1);
    expect(stdout).not.toContain("New problems this edit introduced");
  }, 120_000);
});
