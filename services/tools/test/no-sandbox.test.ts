import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { startToolsHarness } from "./helpers.js";

/** A PATH with a few ordinary tools and no bwrap, as on a machine without bubblewrap. */
let binDir: string;
beforeAll(() => {
  binDir = join(mkdtempSync(join(tmpdir(), "aide-nobwrap-")), "bin");
  mkdirSync(binDir);
  for (const tool of ["prlimit", "echo", "cat", "bash", "env", "true"]) {
    const source = ["/usr/bin", "/bin"].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (source) symlinkSync(source, join(binDir, tool));
  }
});
afterAll(() => rmSync(join(binDir, ".."), { recursive: true, force: true }));

describe("without bubblewrap", () => {
  it("says so at start and refuses commands with SANDBOX_UNAVAILABLE, while file tools keep working", async () => {
    const h = await startToolsHarness({ env: { PATH: binDir } });
    try {
      expect(h.service.logs()).toMatch(/bubblewrap is unavailable/);
      const list = await requestJson(h.client, "agent.tools.list", {});
      expect(list.result.sandbox).toBe("unavailable");
      const reply = await h.exec("run_command", { command: "echo hi" });
      expect(reply.ok).toBe(false);
      expect(reply.error.code).toBe("SANDBOX_UNAVAILABLE");
      const write = await h.exec("write_file", { path: "a.txt", content: "x\n" });
      expect(write.result.is_error).toBe(false);
    } finally {
      await h.stop();
    }
  });

  it("runs commands unsandboxed only with --unsafe-no-sandbox, and says so loudly", async () => {
    const h = await startToolsHarness({ env: { PATH: binDir }, args: ["--unsafe-no-sandbox"] });
    try {
      expect(h.service.logs()).toMatch(/UNSAFE: commands will run WITHOUT a sandbox/);
      const list = await requestJson(h.client, "agent.tools.list", {});
      expect(list.result.sandbox).toBe("unsafe-none");
      const reply = await h.exec("run_command", { command: "echo hi" });
      expect(reply.result.output).toContain("hi");
      expect(reply.result.metadata.sandbox).toBe("unsafe-none");
    } finally {
      await h.stop();
    }
  });
});
