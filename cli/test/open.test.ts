import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";
import { startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

const main = join(repoRoot, "cli", "dist", "main.js");
const complete = "<attempt_completion>\n<result>Nothing to change.</result>\n</attempt_completion>";

/** A link is usable once: the first GET logs in (303 and a cookie), any later GET is refused. */
async function useLink(url: string): Promise<{ status: number; cookie: string | null }> {
  const response = await fetch(url, { redirect: "manual" });
  return { status: response.status, cookie: response.headers.get("set-cookie") };
}

/** Issue 13 item 5 through a real `aide up`: the clickable one-time panel link, `aide open`, and output into closed pipes. */
describe("aide open and the panel link of aide up", () => {
  let root: string;
  let home: string;
  let workspace: string;
  let stack: StackProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-open-"));
    home = join(root, "home");
    workspace = join(root, "project");
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, "README.md"), "# hi\n");
    const transcript = join(root, "transcript.json");
    writeFileSync(transcript, JSON.stringify({ replies: Array.from({ length: 6 }, () => ({ text: complete })) }));
    const models = join(root, "models.json");
    writeFileSync(models, JSON.stringify({ default: "s", models: [{ id: "s", provider: "scripted", transcript, contextBudget: 32_768 }] }));
    stack = await startStackProcess({ aideHome: home, args: ["--workspace", workspace, "--models-config", models] });
    env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1" };
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("aide up prints a clickable one-time link, not the token or a $(cat …)", async () => {
    const line =
      stack
        .output()
        .split("\n")
        .find((l) => l.includes("web panel")) ?? "";
    expect(line).not.toContain("$(cat");
    expect(line).not.toContain(stack.token);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/\?code=[\w-]+)/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    const first = await useLink(url!);
    expect(first.status).toBe(303);
    expect(first.cookie).toMatch(/^aide_session=/);
    expect((await useLink(url!)).status).toBe(401);
  });

  it("aide open SESSION prints a link that works once and opens that session", async () => {
    const result = spawnSync(process.execPath, [main, "open", "s-some-session"], { env, encoding: "utf8", timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    const url = result.stdout.trim();
    expect(url).toMatch(new RegExp(`^${stack.gatewayUrl}/\\?code=[\\w-]+#session=s-some-session$`));
    expect(url).not.toContain(stack.token);
    expect((await useLink(url)).status).toBe(303);
    expect((await useLink(url)).status).toBe(401);
  });

  it("aide open --browser without a display prints the link and says why it opened nothing", () => {
    const result = spawnSync(process.execPath, [main, "open", "--browser"], { env, encoding: "utf8", timeout: 30_000 });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\/\?code=/);
    expect(result.stderr).toContain("no display");
  });

  it("aide sessions into a closed pipe exits 0 without a stack trace", async () => {
    const child = spawn(process.execPath, [main, "sessions"], { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(stderr).toBe("");
  });

  it("aide run --json | head -1: the reader takes one line and goes, aide exits 0 without a stack trace", async () => {
    const child = spawn(process.execPath, [main, "run", "look around", "--workspace", workspace, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) => {
      let seen = "";
      child.stdout.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes("\n")) {
          child.stdout.destroy();
          resolve();
        }
      });
    });
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
  }, 60_000);
});
