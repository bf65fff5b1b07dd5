import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createCheckpointContext } from "./checkpoint-context.js";
import { CheckpointService } from "./checkpoint-service.js";
import { loadCheckpointConfig } from "./config.js";
import { StatPrefetcher } from "./scan/stat-prefetcher.js";
import { useTempDirs } from "../test/temp-dirs.js";

const tempDir = useTempDirs();
const services: CheckpointService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});
/** The worker as built (`tsc -b`): vitest runs this file from src/. */
const builtWorker = new URL("../dist/scan/lstat-worker.js", import.meta.url);

/** A service in this process whose full walks share their lstats with the built lstat thread; its log lines are kept. */
function serviceWithStatThread(root: string) {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const context = createCheckpointContext(loadCheckpointConfig({ AIDE_WORKSPACE_ROOTS: root }), logger);
  // Long wait bound: a claim the worker took is always waited for, so no path is lstatted twice.
  context.statPrefetcher = new StatPrefetcher({ workerUrl: builtWorker, claimWaitMs: 60_000 });
  context.statPrefetcher.start();
  const service = new CheckpointService(context);
  services.push(service);
  return { service, lines };
}

describe("restore with the lstat thread", () => {
  it("a file changed since the latest checkpoint, in the part of the tree the worker lstats, is WORKSPACE_CHANGED; forced, the plan has it and every path was lstatted once", async () => {
    const root = tempDir("aide-restore-thread-");
    const ws = join(root, "ws");
    for (let f = 0; f < 60; f++) {
      mkdirSync(join(ws, `mod${f}`), { recursive: true });
      for (let i = 0; i < 40; i++) writeFileSync(join(ws, `mod${f}`, `file${i}.txt`), `${f}:${i}\n`);
    }
    const paths = 60 * 41;
    const { service, lines } = serviceWithStatThread(root);
    const signal = new AbortController().signal;
    const commit = async (label: string) => (await service.commit({ workspace: ws, session: "s", run: label, label }, signal)).checkpoint.id;
    const first = await commit("first");
    writeFileSync(join(ws, "mod2", "file5.txt"), "committed edit\n");
    // A full walk (no changed_paths) after a full walk: the board is used, the folders' listings hold.
    await commit("second");
    // Last in the walk's order: the worker's end of the board. Then, at the front, one more.
    writeFileSync(join(ws, "mod59", "file39.txt"), "not checkpointed\n");
    const restore = (dry_run: boolean, force: boolean) => service.restore({ workspace: ws, session: "s", checkpoint: first, mode: "files", dry_run, force }, signal);
    await expect(restore(false, false)).rejects.toMatchObject({ code: "WORKSPACE_CHANGED" });
    writeFileSync(join(ws, "mod0", "file0.txt"), "not checkpointed either\n");
    await expect(restore(false, false)).rejects.toMatchObject({ code: "WORKSPACE_CHANGED" });
    const dry = await restore(true, false);
    expect(dry.workspace_changed).toBe(true);
    expect(dry.plan.modified.sort()).toEqual(["mod0/file0.txt", "mod2/file5.txt", "mod59/file39.txt"]);
    const forced = await restore(false, true);
    expect(forced.applied).toBe(true);
    expect(forced.safety_checkpoint).toBeDefined();
    for (const [path, text] of [
      ["mod0/file0.txt", "0:0\n"],
      ["mod2/file5.txt", "2:5\n"],
      ["mod59/file39.txt", "59:39\n"],
    ])
      expect(readFileSync(join(ws, path), "utf8")).toBe(text);
    const restored = lines.find((line) => line.msg === "checkpoint restored");
    expect(restored?.stat_thread).toMatchObject({ paths, twice: 0 });
    expect(restored!.stat_thread.walk + restored!.stat_thread.worker).toBe(paths);
    // Nothing changed since the safety checkpoint but the three files written back: a restore of it is clean.
    const back = await service.restore({ workspace: ws, session: "s", checkpoint: forced.safety_checkpoint!, mode: "files", dry_run: true, force: false }, signal);
    expect(back.workspace_changed).toBe(false);
    expect(back.plan.modified.sort()).toEqual(["mod0/file0.txt", "mod2/file5.txt", "mod59/file39.txt"]);
  });
});
