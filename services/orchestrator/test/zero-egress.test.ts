import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../../tests/helpers/service-process.js";
import { stackSkipReason } from "./support/stack.js";

const skipReason = stackSkipReason();
const ready = skipReason === "";
const canUnshare = process.getuid?.() === 0 && existsSync("/usr/bin/unshare") && existsSync("/usr/sbin/ip");
const nested = process.env.AIDE_E2E_REPORT !== undefined;

/**
 * Seed 000 item 7 ("In-the-Box proof"): the whole scripted e2e (nats-server and every service)
 * runs inside a network namespace whose only interface is loopback. It must complete, and the
 * egress journal must stay empty.
 */
const egressSkip = !canUnshare ? " [SKIPPED: needs root with unshare and ip]" : nested ? " [SKIPPED: this is the nested run]" : skipReason;
describe.skipIf(!ready || !canUnshare || nested)(`zero egress: the scripted e2e inside unshare -n${egressSkip}`, () => {
  it("completes with only loopback and an empty egress journal", () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-netns-"));
    const report = join(dir, "report.json");
    const links = join(dir, "links.txt");
    try {
      const script = `ip link set lo up && ip -o link show > ${links} && exec npx vitest run services/orchestrator/test/e2e-fix-failing-test.test.ts`;
      const result = spawnSync("unshare", ["-n", "sh", "-c", script], {
        cwd: repoRoot,
        env: { ...process.env, AIDE_E2E_REPORT: report },
        encoding: "utf8",
        timeout: 240_000,
      });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const interfaces = readFileSync(links, "utf8")
        .trim()
        .split("\n")
        .map((line) => line.split(":")[1].trim());
      expect(interfaces).toEqual(["lo"]);
      // The nested run tried the network once (and did not reach its probe server), so an empty journal means something.
      expect(JSON.parse(readFileSync(report, "utf8"))).toMatchObject({ state: "done", egress: 0, network_tries: 1, probe_hits: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
