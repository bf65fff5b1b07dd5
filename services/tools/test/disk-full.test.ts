import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { fillDisk, mountSmallDisk } from "../../../tests/helpers/small-disk.js";

const root = mkdtempSync(join(tmpdir(), "aide-tools-full-"));
const disk = join(root, "disk");
mkdirSync(disk);
const mountProblem = mountSmallDisk(disk);
const skip = mountProblem === "" ? "" : ` [SKIPPED: a small tmpfs cannot be mounted here (${mountProblem})]`;

/**
 * Issue 14 item 5: a mutation on a full disk is DISK_FULL (the code the orchestrator pauses on),
 * never TOOL_FAILED or INTERNAL: a workspace write answers a result with `error_code: DISK_FULL`
 * and `disk_area: workspace`, leaving neither the file nor a temporary; a call journal that
 * cannot record the call refuses it with a DISK_FULL error reply. A real 2 MB tmpfs.
 */
describe.skipIf(skip !== "")(`tools on a full disk (a real 2 MB tmpfs)${skip}`, () => {
  let harness: ToolsHarness;
  beforeAll(async () => {
    harness = await startToolsHarness({ scratchParent: disk, stateInScratch: true });
  }, 60_000);
  afterAll(async () => {
    await harness?.stop();
    if (mountProblem === "") execFileSync("umount", ["-l", disk], { stdio: "ignore" });
    rmSync(root, { recursive: true, force: true });
  });

  it("write_file: a DISK_FULL result, no file, no temporary; the journal on the same disk: a DISK_FULL refusal", async () => {
    const content = "x".repeat(300_000);
    // The journal lives on the disk too: fill it and the call cannot even be recorded.
    writeFileSync(join(harness.scratch, "spacer.bin"), Buffer.alloc(64 * 1024));
    fillDisk(harness.scratch);
    const refused = await harness.exec("write_file", { path: "big.txt", content });
    expect(refused.ok, JSON.stringify(refused).slice(0, 300)).toBe(false);
    expect(refused.error.code).toBe("DISK_FULL");
    expect(refused.error.details).toMatchObject({ area: "tools_state" });
    expect(existsSync(join(harness.workspace, "big.txt"))).toBe(false);

    // Room for the journal's lines, not for the file.
    rmSync(join(harness.scratch, "spacer.bin"));
    const result = await harness.exec("write_file", { path: "big.txt", content });
    expect(result.ok, JSON.stringify(result).slice(0, 300)).toBe(true);
    expect(result.result.is_error).toBe(true);
    expect(result.result.metadata).toMatchObject({ error_code: "DISK_FULL", disk_area: "workspace", errno: "ENOSPC" });
    expect(result.result.output).toMatch(/disk is full/);
    expect(existsSync(join(harness.workspace, "big.txt"))).toBe(false);
    expect(readdirSync(harness.workspace).filter((name) => name.includes(".aide-"))).toEqual([]);
  }, 120_000);
});
