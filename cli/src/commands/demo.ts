import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import type { ExperimentSettings } from "@aide/contracts";
import { chooseDemoModel } from "./demo-model-choice.js";
import { aideHome, installRoot } from "../supervisor/aide-home.js";
import type { UpOptions } from "../supervisor/up-options.js";
import { createSupervisor, panelLinkLine } from "./up.js";
import { createGatewayClient } from "../client/gateway-client.js";
import { followSession } from "../client/follow-session.js";
import { createSpinner } from "../client/spinner.js";
import { createStyle } from "../client/terminal-style.js";

const task = "Make the failing test pass. Run the tests with `node --test` to check.";
const scriptedModelId = "demo-scripted";

/**
 * The model for the demo: the configured or present local model; else a fetched real model that
 * was measured to solve this task in 8 of 10 attempts (examples/demo-model.json), with the settings it
 * did that with; else (and with --replay) the recorded transcript, saying what was tried.
 */
function chooseModel(home: ReturnType<typeof aideHome>, demoDir: string, replay: boolean): { modelsConfig?: string; model?: string; experiment?: ExperimentSettings; notice: string } {
  const modelsConfig = join(demoDir, "models.json");
  const transcript = join(installRoot, "examples", "demo", "transcript.json");
  const replayed = (why: string) => {
    writeFileSync(modelsConfig, JSON.stringify({ default: scriptedModelId, models: [{ id: scriptedModelId, provider: "scripted", transcript }] }, null, 2));
    return {
      modelsConfig,
      model: scriptedModelId,
      notice: [
        `The model's replies are REPLAYED from a recorded transcript (${transcript}) through the scripted provider: ${why}.`,
        "Every tool call still runs for real.",
        `To use a real model: put a GGUF file in ${home.modelDir}/ or write ${join(home.root, "models.json")} (see examples/models.example.json).`,
      ].join("\n"),
    };
  };
  if (replay) return replayed("asked for with --replay");
  const configured = join(home.root, "models.json");
  if (existsSync(configured)) return { modelsConfig: configured, notice: `Model: the default of ${configured}.` };
  const ggufs = existsSync(home.modelDir) ? readdirSync(home.modelDir).filter((f) => f.endsWith(".gguf")) : [];
  if (ggufs.length > 0) {
    const modelsConfig = join(demoDir, "models.json");
    writeFileSync(modelsConfig, JSON.stringify({ default: "local", models: [{ id: "local", provider: "llama", file: join(home.modelDir, ggufs[0]) }] }, null, 2));
    return { modelsConfig, model: "local", notice: `Model: ${ggufs[0]} from ${home.modelDir} (node-llama-cpp, on this machine).` };
  }
  const choice = chooseDemoModel();
  if (choice.kind === "replay") return replayed(`no local model is configured, and ${choice.reason}`);
  const { measured } = choice;
  writeFileSync(modelsConfig, JSON.stringify({ default: measured.model, models: [{ id: measured.model, provider: "llama", file: choice.file, threads: 1 }] }, null, 2));
  return {
    modelsConfig,
    model: measured.model,
    experiment: measured.settings,
    notice: `Model: ${measured.model} (${choice.file}, a real model through node-llama-cpp), which solved this task in ${measured.passed} of ${measured.attempts} measured attempts${measured.arm ? ` with the settings of arm ${measured.arm}` : ""} (${choice.source}). --replay replays the recorded transcript instead.`,
  };
}

/**
 * `aide demo` (npm run demo): a fresh copy of examples/sample-project, the whole stack started
 * with its own state directory, one real session through the gateway, the outcome checked by
 * running the project's tests ourselves, then everything stopped.
 */
export async function run(options: UpOptions, flags: { replay?: boolean } = {}): Promise<number> {
  const style = createStyle(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  const userHome = aideHome();
  const demoRoot = join(userHome.root, "demo");
  const workspace = join(demoRoot, `workspace-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(demoRoot, { recursive: true, mode: 0o700 });
  cpSync(join(installRoot, "examples", "sample-project"), workspace, { recursive: true });
  const model = chooseModel(userHome, demoRoot, flags.replay === true);

  const say = (text = "") => process.stdout.write(text + "\n");
  say(style.bold("aide demo: make the failing test pass in a small sample project"));
  say(model.notice);
  say(`Workspace: ${workspace} (a fresh copy of examples/sample-project)`);
  say(style.dim("Approvals: auto-approved for the demo (edits inside the workspace, and the command `node --test`); `aide run` asks you instead."));
  say();

  // The demo's stack has its own state directory and ports, so it never collides with `aide up`.
  const { supervisor, home } = createSupervisor(
    { ...options, natsPort: 0, gatewayPort: 0, workspaces: [workspace], modelsConfig: model.modelsConfig, model: model.model },
    { ...process.env, AIDE_HOME: join(demoRoot, "stack") },
  );
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      say(style.dim("stopping the stack…"));
      await supervisor.stop();
    })());
  // A signal at any point (nats-server or a service still starting, the session running) stops
  // what started, nats-server included, and exits 130/143; without this the default action ended
  // the process and left the demo's nats-server running.
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`aide demo: ${signal}; stopping what started\n`);
    void stop()
      .catch(() => undefined)
      .finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let exitCode = 1;
  try {
    say(style.dim("starting nats-server and the five services (each in its own sandbox)…"));
    const info = await supervisor.start();
    say(style.dim(`stack up: gateway ${info.gatewayUrl}, bus ${info.natsUrl}, logs in ${home.logDir}`));
    say(`Watch it in the web panel: ${await panelLinkLine(info)}`);
    const client = createGatewayClient({ baseUrl: info.gatewayUrl, token: readFileSync(info.tokenFile, "utf8").trim() });
    const started = await client.start({
      task,
      workspace,
      mode: "act",
      ...(model.model ? { model: model.model } : {}),
      ...(model.experiment && Object.keys(model.experiment).length > 0 ? { experiment: model.experiment } : {}),
      auto_approve: { edits: true, commands: ["node --test"] },
    });
    say(style.dim(`session ${started.session} · run ${started.run}`));
    const follower = followSession({ client, session: started.session, out: process.stdout, style, spinner: createSpinner(process.stderr, false) });
    const outcome = await follower.outcome;
    exitCode = outcome.exitCode;
    say();
    say(style.bold("Checking the outcome ourselves: node --test in the workspace"));
    const check = spawnSync(process.execPath, ["--test"], { cwd: workspace, encoding: "utf8", timeout: 60_000 });
    const summary = (check.stdout ?? "")
      .split("\n")
      .filter((line) => /^# (tests|pass|fail)/.test(line))
      .join("  ");
    say(`${check.status === 0 ? style.green("PASS") : style.red("FAIL")}  ${summary}`);
    if (check.status !== 0) exitCode = exitCode || 1;
    say(`Run outcome: ${outcome.state}. The demo's logs are in ${home.logDir}; the fixed project stays in ${workspace}.`);
    say(`To work on your own project: aide up --workspace DIR, then aide run "<task>" --workspace DIR (or open the web panel).`);
  } catch (error) {
    process.stderr.write(`aide demo: ${(error as Error).message}\n`);
    exitCode = 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stop();
  }
  return exitCode;
}
