import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";
import { postJson, readEvents, startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

const main = join(repoRoot, "cli", "dist", "main.js");
const slugLine = '  const slug = text.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");';
const slugSource = `export function buildPatternSlug(text, { lowercase = true } = {}) {\n${slugLine}\n  return lowercase ? slug.toLowerCase() : slug;\n}\n`;
const claim = "Fixed buildPatternSlug in slug.js. npx ava: 20 tests passed.";
const complete = `<attempt_completion>\n<result>${claim}</result>\n</attempt_completion>`;
const replies = [
  { text: "<read_file>\n<path>slug.js</path>\n</read_file>" },
  { text: `<replace_in_file>\n<path>slug.js</path>\n<diff>\n<<<<<<< SEARCH\n${slugLine}\n=======\n${slugLine.replace("a-z0-9", "a-zA-Z0-9")}\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>` },
  { text: "<run_command>\n<command>npx ava</command>\n</run_command>" },
  { text: complete },
  { text: complete },
  { text: complete },
];

/**
 * Issue 12's false `done, exit 0` through the real `aide run` over `aide up`: a bug report with
 * no imperative verb, every edit and command the model proposes rejected (here by another client,
 * as `aide run` without a TTY waits for one), and a completion claiming a fix and 20 passing
 * tests. `aide run` must print the unverified outcome and exit 3, never `done` and 0.
 */
describe("aide run: a run whose every change was rejected ends unverified (exit 3), not done", () => {
  let root: string;
  let workspace: string;
  let home: string;
  let stack: StackProcess;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-run-unverified-"));
    workspace = join(root, "project");
    home = join(root, "home");
    mkdirSync(workspace, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(workspace, "slug.js"), slugSource);
    writeFileSync(join(workspace, "package.json"), JSON.stringify({ name: "slug", type: "module", scripts: { test: "ava" } }));
    const transcript = join(root, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ replies }));
    const models = join(root, "models.json");
    // A window large enough that the three completion attempts need no compaction request.
    writeFileSync(models, JSON.stringify({ default: "liar", models: [{ id: "liar", provider: "scripted", transcript, contextBudget: 32_768 }] }));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace, "--models-config", models] });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("uppercase letters vanish when lowercase is false → completion.rejected quoting the claims, ⚠ unverified, exit 3", async () => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1" };
    const child = spawn(process.execPath, [main, "run", "uppercase letters vanish when lowercase is false", "--workspace", workspace], { env, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    const session = await new Promise<string>((resolve, reject) => {
      const probe = () => {
        const found = /session (\w+) ·/.exec(output)?.[1];
        if (found) return resolve(found);
        if (child.exitCode !== null || Date.now() > deadline) return reject(new Error(`no session line from aide run:\n${output}`));
        setTimeout(probe, 50);
      };
      probe();
    });

    const decisions: Array<Promise<{ status: number }>> = [];
    const rejectedTools: string[] = [];
    const events = await readEvents(
      stack,
      session,
      0,
      (event) => {
        if (event.type === "approval.requested") {
          rejectedTools.push(event.payload.tool);
          decisions.push(postJson(stack, "/api/agent/decision", { session, approval: event.payload.approval, decision: "reject", feedback: "No." }));
        }
        return ["run.completed", "run.failed", "run.cancelled"].includes(event.type);
      },
      120_000,
    );
    expect((await Promise.all(decisions)).map((reply) => reply.status)).toEqual([200, 200]);
    expect(rejectedTools).toEqual(["replace_in_file", "run_command"]);

    const code = await exit;
    expect(events.at(-1)).toMatchObject({ type: "run.completed", payload: { state: "unverified" } });
    const rejection = events.find((event) => event.type === "completion.rejected");
    expect(rejection.payload.claims.map((entry: { quote: string }) => entry.quote)).toEqual(expect.arrayContaining(["Fixed buildPatternSlug in slug.js", "npx ava", "20 tests passed"]));
    expect(output).toContain("unverified: INCOMPLETE (unverified)");
    expect(output).not.toContain("✔ done");
    expect(code, output).toBe(3);
    expect(readFileSync(join(workspace, "slug.js"), "utf8")).toBe(slugSource);
  }, 180_000);
});
