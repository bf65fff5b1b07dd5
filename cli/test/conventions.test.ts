import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";

const main = join(repoRoot, "cli", "dist", "main.js");
const emptyHome = () => mkdtempSync(join(tmpdir(), "aide-conventions-"));

function aide(args: string[], options: { home?: string; env?: Record<string, string> } = {}) {
  const home = options.home ?? emptyHome();
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home, NO_COLOR: "1", ...options.env };
  return spawnSync(process.execPath, [main, ...args], { env, encoding: "utf8", timeout: 60_000 });
}

describe("aide follows the CLI conventions of its peers", () => {
  const commands = [
    ["up"],
    ["demo"],
    ["run"],
    ["sessions"],
    ["approve"],
    ["restore"],
    ["models"],
    ["models", "list"],
    ["models", "add"],
    ["models", "probe"],
    ["models", "pull"],
    ["events"],
    ["bus-config"],
    ["doctor"],
    ["open"],
    ["settings"],
  ];
  it.each(
    commands.flatMap((command) => [
      [...command, "--help"],
      [...command, "-h"],
    ]),
  )("aide %s %s prints usage and exits 0", (...args) => {
    const result = aide(args);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Usage: aide ${args.slice(0, -1).join(" ")}`);
    expect(result.stderr).toBe("");
  });

  it("--version and -V print the package version", () => {
    const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
    for (const flag of ["--version", "-V"]) {
      const result = aide([flag]);
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });

  it("refuses an unknown flag with exit 2 naming the nearest one, and never runs the task it would have swallowed", () => {
    const home = emptyHome();
    const result = aide(["run", "--verbos", "fix the bug"], { home });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown option '--verbos'");
    expect(result.stderr).toContain("Did you mean --verbose?");
    // No stack was started for a run that was refused.
    expect(result.stderr).not.toContain("starting one");
    const up = aide(["up", "--gateway-prot", "0"], { home });
    expect(up.status).toBe(2);
    expect(up.stderr).toContain("Did you mean --gateway-port?");
    const nested = aide(["models", "add", "x", "--flie", "a.gguf"], { home });
    expect(nested.status).toBe(2);
    expect(nested.stderr).toContain("Did you mean --file?");
    const command = aide(["sesions"], { home });
    expect(command.status).toBe(2);
    expect(command.stderr).toContain("Did you mean sessions?");
  });

  it("an unknown subcommand is an error even with --help: exit 2, naming the nearest command", () => {
    const home = emptyHome();
    const top = aide(["nosuchcmd", "--help"], { home });
    expect(top.status).toBe(2);
    expect(top.stderr).toContain("unknown command 'nosuchcmd'");
    expect(top.stdout).toBe("");
    const slip = aide(["sesions", "-h"], { home });
    expect(slip.status).toBe(2);
    expect(slip.stderr).toContain("Did you mean sessions?");
    const nested = aide(["models", "lst", "--help"], { home });
    expect(nested.status).toBe(2);
    expect(nested.stderr).toContain("unknown command 'lst' for 'aide models' (Did you mean list?)");
    // A task's words are not commands: run's help stays help.
    const task = aide(["run", "fix", "the", "bug", "--help"], { home });
    expect(task.status).toBe(0);
    expect(task.stdout).toContain("Usage: aide run");
  });

  it("a bad value of a known flag is a usage error (exit 2) naming the flag", () => {
    const result = aide(["up", "--nats-port", "many"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--nats-port");
    expect(aide(["run", "t", "--mode", "yolo"]).status).toBe(2);
  });

  it("loads only the module of the command it runs: aide events never loads the supervisor", () => {
    const dir = emptyHome();
    const log = join(dir, "resolved.log");
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\n");
  return result;
}\n`,
    );
    writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`);
    const result = spawnSync(process.execPath, ["--import", pathToFileURL(join(dir, "register.mjs")).href, main, "events"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, AIDE_HOME: dir },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain("no running stack");
    const loaded = readFileSync(log, "utf8");
    expect(loaded).toContain("/cli/dist/commands/events.js");
    expect(loaded).not.toContain("/cli/dist/supervisor/supervisor.js");
    expect(loaded).not.toContain("/cli/dist/commands/up.js");
    expect(loaded).not.toContain("/cli/dist/commands/run.js");
  });

  it("aide doctor into a pipe its reader already closed exits 0 without a stack trace", async () => {
    const home = emptyHome();
    const child = spawn(process.execPath, [main, "doctor"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AIDE_HOME: home }, stdio: ["ignore", "pipe", "pipe"] });
    // `aide doctor | true`: the reader is gone before the first line is written.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("aide run refuses a workspace that cannot be one, before it starts anything", () => {
  const root = mkdtempSync(join(tmpdir(), "aide-ws-errors-"));
  const home = join(root, "home");
  const aideHome = join(root, "aide-home");
  mkdirSync(join(home, "Documents"), { recursive: true });
  mkdirSync(aideHome, { recursive: true });
  writeFileSync(join(root, "notes.txt"), "a file\n");
  const run = (workspace: string) => aide(["run", "a task", "--workspace", workspace], { home: aideHome, env: { HOME: home } });

  it.each([
    [join(root, "missing"), "WORKSPACE_NOT_FOUND", "does not exist"],
    [join(root, "notes.txt"), "WORKSPACE_NOT_A_DIRECTORY", "is a file, not a directory"],
    ["/", "WORKSPACE_TOO_BROAD", "never accepted"],
    [home, "WORKSPACE_TOO_BROAD", "your home directory"],
    [join(home, "Documents"), "WORKSPACE_TOO_BROAD", "aide up --allow-home-workspace"],
  ])("%s → %s", (workspace, code, text) => {
    const result = run(workspace);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(code);
    expect(result.stderr).toContain(text);
    expect(result.stderr).not.toContain("starting one");
  });
});
