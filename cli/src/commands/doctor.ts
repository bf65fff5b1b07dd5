import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { findNatsServer } from "@aide/runtime";
import { aideHome, installRoot } from "../supervisor/aide-home.js";
import { readStackFile } from "../supervisor/stack-file.js";
import { effectiveProfile, type EffectiveProfile } from "../supervisor/effective-profile.js";
import { serviceNames, type ServiceName } from "@aide/contracts";
import { mcpServerStates, mcpStateLines } from "./mcp-states.js";
import { noModelHint } from "@aide/model";
import { checkRegistryFile } from "./models-file.js";
import { limitsCheck } from "./limits-check.js";

/**
 * The model registry: models.json (or AIDE_MODELS_CONFIG) must validate — a bad field fails the
 * check naming its path — and some model must exist: configured, or a GGUF in the models folder
 * (loopback servers are found by the running service; \`aide models\` lists them).
 */
export function modelCheck(home: { root: string; modelDir: string }, env: NodeJS.ProcessEnv): Check {
  const configPath = env.AIDE_MODELS_CONFIG || join(home.root, "models.json");
  const problem = checkRegistryFile(configPath);
  if (problem) return { name: "model", ok: false, detail: problem, fix: `fix the field named above in ${configPath} (aide models add validates an entry before writing it)`, required: true };
  const ggufs = existsSync(home.modelDir) ? readdirSync(home.modelDir).filter((f) => f.endsWith(".gguf")) : [];
  if (existsSync(configPath)) return { name: "model", ok: true, detail: `${configPath} is valid${ggufs.length > 0 ? `; ${ggufs.length} GGUF file(s) in ${home.modelDir}` : ""}`, required: false };
  if (ggufs.length > 0) return { name: "model", ok: true, detail: `${ggufs.join(", ")} in ${home.modelDir}`, required: false };
  return { name: "model", ok: false, detail: `none configured (aide demo replays a recorded transcript); to use a model: ${noModelHint(home.root, configPath)}`, required: false };
}

const exec = promisify(execFile);

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do when it is missing. */
  fix?: string;
  required: boolean;
}

async function version(binary: string, args: string[]): Promise<string | undefined> {
  try {
    const { stdout, stderr } = await exec(binary, args, { timeout: 5000 });
    return (stdout || stderr).split("\n")[0].trim();
  } catch {
    return undefined;
  }
}

export async function runChecks(env: NodeJS.ProcessEnv = process.env): Promise<Check[]> {
  const checks: Check[] = [];
  const nats = findNatsServer(env);
  const natsVersion = nats ? await version(nats, ["--version"]) : undefined;
  checks.push({ name: "nats-server", ok: Boolean(natsVersion), detail: natsVersion ? `${natsVersion} (${nats})` : "not found", fix: "apt-get install nats-server", required: true });
  const bwrapVersion = await version("bwrap", ["--version"]);
  let bwrapWorks = false;
  if (bwrapVersion) {
    try {
      await exec("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--die-with-parent", "true"], { timeout: 5000 });
      bwrapWorks = true;
    } catch {
      bwrapWorks = false;
    }
  }
  checks.push({
    name: "bubblewrap",
    ok: bwrapWorks,
    detail: bwrapVersion ? `${bwrapVersion}${bwrapWorks ? ", namespaces work" : ", but a sandbox cannot be created here (namespaces not permitted)"}` : "not found",
    fix: "apt-get install bubblewrap",
    required: true,
  });
  const rg = await version("rg", ["--version"]);
  checks.push({ name: "ripgrep", ok: Boolean(rg), detail: rg ?? "not found (search_files falls back to a slower JS search)", fix: "apt-get install ripgrep", required: false });
  const git = await version("git", ["--version"]);
  checks.push({ name: "git", ok: Boolean(git), detail: git ?? "not found (git_status/git_diff unavailable)", fix: "apt-get install git", required: false });
  const openssl = await version("openssl", ["version"]);
  // Without it `aide up` cannot make the bus's TLS certificate (an external NATS does not need it).
  checks.push({
    name: "openssl",
    ok: Boolean(openssl),
    detail: openssl ?? "not found (aide up makes the bus's TLS certificate with it)",
    fix: "apt-get install openssl",
    required: !env.AIDE_NATS_URL,
  });
  checks.push({ name: "node", ok: Number(process.versions.node.split(".")[0]) >= 20, detail: process.version, required: true });

  const home = aideHome(env);
  checks.push(modelCheck(home, env));
  const built = existsSync(join(installRoot, "services", "gateway", "dist", "main.js"));
  checks.push({ name: "build", ok: built, detail: built ? "compiled" : "not built", fix: "npm run build", required: true });
  checks.push(limitsCheck());
  const stack = readStackFile(home.stackFile);
  checks.push({
    name: "stack",
    ok: true,
    detail: stack ? `running (supervisor pid ${stack.pid}, gateway ${stack.gateway_url})${stack.unsandboxed_services ? "; services run UNSANDBOXED (--unsandboxed-services)" : ""}` : "not running",
    required: false,
  });
  return checks;
}

/** The effective sandbox of each service of the running stack (empty when none runs). */
export function runningProfiles(env: NodeJS.ProcessEnv = process.env): EffectiveProfile[] {
  const stack = readStackFile(aideHome(env).stackFile);
  if (!stack) return [];
  return serviceNames.flatMap((name: ServiceName) => {
    const pid = stack.services[name]?.pid;
    if (!pid) return [];
    try {
      return [effectiveProfile(name, pid, !stack.unsandboxed_services)];
    } catch {
      return [];
    }
  });
}

export async function run(options: { json?: boolean }): Promise<number> {
  const json = options.json === true;
  const checks = await runChecks();
  const profiles = runningProfiles();
  const mcp = profiles.length > 0 ? mcpServerStates() : [];
  if (json) {
    process.stdout.write(JSON.stringify({ checks, profiles, mcp_servers: mcp }, null, 2) + "\n");
  } else {
    for (const check of checks) {
      const mark = check.ok ? "ok  " : check.required ? "FAIL" : "warn";
      process.stdout.write(`${mark}  ${check.name.padEnd(12)} ${check.detail}${!check.ok && check.fix ? `  → ${check.fix}` : ""}\n`);
    }
    if (profiles.length > 0) {
      process.stdout.write(`\nservice profiles${profiles[0].sandboxed ? "" : " — UNSANDBOXED (--unsandboxed-services)"}:\n`);
      for (const p of profiles) {
        const own =
          Object.entries(p.namespaces)
            .filter(([, v]) => v === "own")
            .map(([k]) => k)
            .join(",") || "none";
        process.stdout.write(`  ${p.service.padEnd(12)} pid ${String(p.pid).padEnd(7)} namespaces: ${own.padEnd(16)} capabilities: ${p.capabilities.join(",") || "none"}\n`);
        process.stdout.write(`  ${"".padEnd(12)} workspace: ${p.workspace}; ${p.why}\n`);
      }
    }
    if (mcp.length > 0) process.stdout.write(`\nMCP servers:\n${mcpStateLines(mcp).join("\n")}\n`);
  }
  return checks.some((check) => check.required && !check.ok) ? 1 : 0;
}
