import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../tests/helpers/service-process.js";
import { startStackProcess, type StackProcess } from "../../tests/helpers/stack-process.js";

/**
 * Issue 26: on a host whose cgroup v2 hierarchy lacks memory and pids, limits were silently off.
 * AIDE_CGROUP_HIERARCHY=v2 makes aide up and aide doctor use this hybrid host's real unified
 * hierarchy (hugetlb only): both must say loudly, with a stable code, that limits are off.
 */
const unified = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"].find((root) => existsSync(join(root, "cgroup.controllers")));
const controllers = unified ? readFileSync(join(unified, "cgroup.controllers"), "utf8").split(/\s+/).filter(Boolean) : [];
const v2LacksLimits = unified !== undefined && !(controllers.includes("memory") && controllers.includes("pids"));
const reason = unified === undefined ? "no cgroup v2 hierarchy is mounted" : `this host's v2 hierarchy has memory and pids, so limits are not off there`;

describe.skipIf(!v2LacksLimits)(`limits off on cgroup v2 are said loudly${v2LacksLimits ? "" : ` [SKIPPED: ${reason}]`}`, () => {
  const dirs: string[] = [];
  let stack: StackProcess | undefined;
  afterAll(async () => {
    await stack?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("aide doctor warns SANDBOX_LIMITS_UNAVAILABLE with the reason", () => {
    const home = mkdtempSync(join(tmpdir(), "aide-limits-doctor-"));
    dirs.push(home);
    let output: string;
    try {
      output = execFileSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), "doctor"], { env: { ...process.env, AIDE_HOME: home, AIDE_CGROUP_HIERARCHY: "v2" }, encoding: "utf8" });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? "");
    }
    expect(output).toMatch(/^warn\s+limits\s+SANDBOX_LIMITS_UNAVAILABLE: per-command memory and process limits are OFF — .*memory, pids/m);
  });

  it("aide up logs a warning with code SANDBOX_LIMITS_UNAVAILABLE for tools and mcp", async () => {
    const home = mkdtempSync(join(tmpdir(), "aide-limits-up-"));
    const workspace = join(home, "ws");
    mkdirSync(workspace);
    dirs.push(home);
    stack = await startStackProcess({ aideHome: join(home, "aide"), args: ["--workspace", workspace], env: { AIDE_CGROUP_HIERARCHY: "v2" } });
    const logDir = join(home, "aide", "logs");
    const logs = [stack.output(), ...(existsSync(logDir) ? readdirSync(logDir).map((name) => readFileSync(join(logDir, name), "utf8")) : [])].join("\n");
    const warnings = logs.split("\n").filter((line) => line.includes('"code":"SANDBOX_LIMITS_UNAVAILABLE"') && line.includes('"level":40'));
    expect(
      warnings.some((line) => line.includes('"service":"tools"')),
      logs.slice(-3000),
    ).toBe(true);
    expect(warnings.some((line) => line.includes('"service":"mcp"'))).toBe(true);
  }, 120_000);
});
