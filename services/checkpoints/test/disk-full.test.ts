import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call, callError } from "./helpers.js";
import { fillDisk, mountSmallDisk } from "../../../tests/helpers/small-disk.js";

function free(dir: string): void {
  for (const name of ["filler.bin", "filler-tail.bin"]) rmSync(join(dir, name), { force: true });
}

const root = mkdtempSync(join(tmpdir(), "aide-cp-full-"));
const disk = join(root, "disk");
mkdirSync(disk);
const mountProblem = mountSmallDisk(disk);
const skip = mountProblem === "" ? "" : ` [SKIPPED: a small tmpfs cannot be mounted here (${mountProblem})]`;

/**
 * Issue 14 item 5: a checkpoint operation on a full disk answers DISK_FULL with the area (the
 * checkpoint store or the workspace), never INTERNAL, names no file path, leaves no lock behind,
 * and works again once space is freed. A real 2 MB tmpfs, the real checkpoints process.
 */
describe.skipIf(skip !== "")(`checkpoints on a full disk (a real 2 MB tmpfs)${skip}`, () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  const workspace = join(disk, "ws");

  beforeAll(async () => {
    mkdirSync(join(workspace, "src"), { recursive: true });
    writeFileSync(join(workspace, "src", "main.js"), "console.log('hi');\n");
    writeFileSync(join(workspace, "data.bin.txt"), randomBytes(150_000).toString("base64"));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: disk, AIDE_LOG_LEVEL: "info" } });
    client = await bus.connectAs("orchestrator");
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    if (mountProblem === "") execFileSync("umount", ["-l", disk], { stdio: "ignore" });
    rmSync(root, { recursive: true, force: true });
  });

  const commit = (run: string) => ({ workspace, session: "s1", run, label: run });

  it("commit and restore answer DISK_FULL (not INTERNAL), and work again once space is freed", async () => {
    const first = (await call(client, "agent.checkpoints.commit", commit("r1"))).checkpoint.id as string;

    // New incompressible content to store, then no byte left.
    writeFileSync(join(workspace, "more.txt"), randomBytes(200_000).toString("base64"));
    fillDisk(disk);
    const refused = await callError(client, "agent.checkpoints.commit", commit("r2"));
    expect(refused.code).toBe("DISK_FULL");
    expect(refused.message).toMatch(/^No space left on the disk holding /);
    expect(refused.message).not.toMatch(/objects\/|\.pack|\.tmp/);
    expect((refused as { details?: { area?: string } }).details?.area).toBe("checkpoints");

    // A restore that must write a file back (the deleted data file) onto the full disk.
    free(disk);
    unlinkSync(join(workspace, "data.bin.txt"));
    fillDisk(disk);
    const restore = await callError(client, "agent.checkpoints.restore", { workspace, session: "s1", checkpoint: first, mode: "files", force: true });
    expect(restore.code).toBe("DISK_FULL");
    expect(["workspace", "checkpoints"]).toContain((restore as { details?: { area?: string } }).details?.area);

    // Space back: the same operations succeed (no lock or half-written state left behind).
    free(disk);
    const second = await call(client, "agent.checkpoints.commit", commit("r3"));
    expect(second.checkpoint.id).toMatch(/^[0-9a-f]{40}$/);
    const restored = await call(client, "agent.checkpoints.restore", { workspace, session: "s1", checkpoint: first, mode: "files", force: true });
    expect(restored.applied).toBe(true);
  }, 120_000);
});
