import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call } from "./helpers.js";

describe("excludes from a config file and the environment (real service over the bus)", () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-cp-config-"));
    const configFile = join(root, "checkpoints.json");
    writeFileSync(configFile, JSON.stringify({ extra_excludes: ["*.log", "/generated/"], respect_gitignore: true, max_file_bytes: 1000 }));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", {
      env: { AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info", AIDE_CHECKPOINT_CONFIG: configFile, AIDE_CHECKPOINT_MAX_FILE_BYTES: "2000" },
    });
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("captures what the configuration allows and nothing else", async () => {
    const ws = join(root, "ws");
    mkdirSync(join(ws, "generated"), { recursive: true });
    mkdirSync(join(ws, "src", "generated"), { recursive: true });
    mkdirSync(join(ws, "node_modules", "x"), { recursive: true });
    writeFileSync(join(ws, ".gitignore"), "secret.env\n");
    writeFileSync(join(ws, "secret.env"), "TOKEN=1\n");
    writeFileSync(join(ws, "debug.log"), "log\n");
    writeFileSync(join(ws, "generated", "g.ts"), "rooted exclude\n");
    writeFileSync(join(ws, "src", "generated", "kept.ts"), "not rooted, kept\n");
    writeFileSync(join(ws, "node_modules", "x", "i.js"), "default exclude\n");
    writeFileSync(join(ws, "medium.bin"), Buffer.alloc(1500, 1)); // under the env's 2000, over the file's 1000
    writeFileSync(join(ws, "large.bin"), Buffer.alloc(2500, 1));
    const result = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "configured" });
    expect(result.skipped).toEqual([{ path: "large.bin", reason: "larger than 2000 bytes (2500)" }]);
    const gitdir = join(ws, ".aide", "checkpoints", readdirSync(join(ws, ".aide", "checkpoints"))[0]);
    const paths = execFileSync("git", ["--git-dir", gitdir, "ls-tree", "-r", "--name-only", result.checkpoint.id]).toString().trim().split("\n");
    expect(paths.sort()).toEqual([".gitignore", "medium.bin", "src/generated/kept.ts"]);
  });
});
