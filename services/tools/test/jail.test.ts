import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { listTree } from "../../../bench/lib/swap-racer.js";

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("path jail over the bus", () => {
  let h: ToolsHarness;
  let outside: string;
  let sentinel: string;
  let sentinelHash: string;
  let outsideTree: string[];
  beforeAll(async () => {
    h = await startToolsHarness();
    outside = join(h.scratch, "outside");
    mkdirSync(join(outside, "deep"), { recursive: true });
    sentinel = join(outside, "sentinel.txt");
    writeFileSync(sentinel, "do not touch\n");
    writeFileSync(join(outside, "deep", "secret.txt"), "secret\n");
    sentinelHash = sha(sentinel);
    symlinkSync(outside, join(h.workspace, "out-link"));
    symlinkSync(join(outside, "deep"), join(h.workspace, "deep-link"));
    symlinkSync(join(outside, "not-yet-there.txt"), join(h.workspace, "dangling"));
    symlinkSync(join(outside, "newdir"), join(h.workspace, "dangling-dir"));
    mkdirSync(join(h.workspace, "inner"));
    writeFileSync(join(h.workspace, "inner", "ok.txt"), "fine\n");
    symlinkSync(join(h.workspace, "inner"), join(h.workspace, "inner-link"));
    outsideTree = listTree(h.scratch).filter((p) => !p.startsWith("ws"));
  });
  afterAll(async () => {
    if (h) {
      expect(sha(sentinel)).toBe(sentinelHash);
      expect(listTree(h.scratch).filter((p) => !p.startsWith("ws"))).toEqual(outsideTree);
      await h.stop();
    }
  });

  const refusedRead = async (path: string, code: string) => {
    const reply = await h.exec("read_file", { path });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    expect(reply.result.is_error, path).toBe(true);
    expect(reply.result.metadata.error_code, path).toBe(code);
  };
  const refusedWrite = async (path: string, code: string) => {
    const reply = await h.exec("write_file", { path, content: "pwned\n" });
    expect(reply.result.is_error, path).toBe(true);
    expect(reply.result.metadata.error_code, path).toBe(code);
    expect(reply.result.changed_paths).toEqual([]);
    const preview = await h.preview("write_file", { path, content: "pwned\n" });
    expect(preview.result.error, path).toBeDefined();
  };

  it("refuses ../ traversal", async () => {
    await refusedRead("../outside/sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("../outside/sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("inner/../../outside/new.txt", "PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses absolute paths outside, accepts absolute paths inside", async () => {
    await refusedRead(sentinel, "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite(join(outside, "abs.txt"), "PATH_OUTSIDE_WORKSPACE");
    await refusedRead("/etc/passwd", "PATH_OUTSIDE_WORKSPACE");
    const inside = await h.exec("read_file", { path: join(h.workspace, "inner", "ok.txt") });
    expect(inside.result.is_error).toBe(false);
    expect(inside.result.output).toContain("fine");
  });

  it("refuses ~, NUL bytes, file:// URLs and backslashes", async () => {
    await refusedRead("~/.ssh/id_rsa", "PATH_INVALID");
    await refusedWrite("~/x", "PATH_INVALID");
    await refusedRead("inner/ok.txt\u0000.png", "PATH_INVALID");
    await refusedWrite("a\u0000b", "PATH_INVALID");
    await refusedRead(`file://${sentinel}`, "PATH_INVALID");
    await refusedWrite("..\\outside\\sentinel.txt", "PATH_INVALID");
    await refusedRead("C:/Windows/win.ini", "PATH_INVALID");
  });

  it("refuses a pre-existing symlink to a directory outside, for reads, listings and writes", async () => {
    await refusedRead("out-link/sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedRead("deep-link/secret.txt", "PATH_OUTSIDE_WORKSPACE");
    const list = await h.exec("list_dir", { path: "out-link" });
    expect(list.result.metadata.error_code).toBe("PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("out-link/sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("out-link/created.txt", "PATH_OUTSIDE_WORKSPACE");
    const edit = await h.exec("replace_in_file", { path: "out-link/sentinel.txt", search: "do not touch", replace: "touched" });
    expect(edit.result.metadata.error_code).toBe("PATH_OUTSIDE_WORKSPACE");
    const patch = await h.exec("apply_patch", { diff: "--- a/out-link/sentinel.txt\n+++ b/out-link/sentinel.txt\n@@ -1 +1 @@\n-do not touch\n+touched\n" });
    expect(patch.result.is_error).toBe(true);
  });

  it("resolves link/.. as the kernel does (the parent of the link's target), not lexically", async () => {
    // Lexically `deep-link/../sentinel.txt` is `sentinel.txt` inside the workspace; the kernel goes to outside/sentinel.txt.
    await refusedRead("deep-link/../sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("deep-link/../sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    expect(existsSync(join(h.workspace, "sentinel.txt"))).toBe(false);
    // An inside link collapses inside and is fine.
    const ok = await h.exec("read_file", { path: "inner-link/../inner/ok.txt" });
    expect(ok.result.is_error).toBe(false);
  });

  it("refuses a dangling symlink whose target is outside", async () => {
    await refusedWrite("dangling", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("dangling-dir/file.txt", "PATH_OUTSIDE_WORKSPACE");
    expect(existsSync(join(outside, "not-yet-there.txt"))).toBe(false);
    expect(existsSync(join(outside, "newdir"))).toBe(false);
  });

  it("refuses a directory symlink in the middle of a new path", async () => {
    await refusedWrite("out-link/a/b/c.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("inner/../out-link/deeper/x.txt", "PATH_OUTSIDE_WORKSPACE");
    expect(existsSync(join(outside, "a"))).toBe(false);
    expect(existsSync(join(outside, "deeper"))).toBe(false);
  });

  it("refuses a symlink created by run_command and then used by write_file", async () => {
    const made = await h.exec("run_command", { command: `ln -s ${outside} made-link && ln -s ${sentinel} made-file-link && ls -l` });
    expect(made.result.metadata.exit_code).toBe(0);
    await refusedWrite("made-link/sentinel.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("made-link/new.txt", "PATH_OUTSIDE_WORKSPACE");
    await refusedWrite("made-file-link", "PATH_OUTSIDE_WORKSPACE");
    await refusedRead("made-file-link", "PATH_OUTSIDE_WORKSPACE");
  });

  it("keeps .aide/ (the agent's state and shadow repositories) unreadable and unwritable", async () => {
    mkdirSync(join(h.workspace, ".aide", "checkpoints"), { recursive: true });
    writeFileSync(join(h.workspace, ".aide", "checkpoints", "HEAD"), "ref\n");
    await refusedRead(".aide/checkpoints/HEAD", "PATH_DENIED");
    await refusedWrite(".aide/checkpoints/HEAD", "PATH_DENIED");
    await refusedWrite("inner/../.aide/evil", "PATH_DENIED");
    const listing = await h.exec("list_dir", { path: ".aide" });
    expect(listing.result.metadata.error_code).toBe("PATH_DENIED");
    const shell = await h.exec("run_command", { command: "echo x > .aide/evil; cat .aide/checkpoints/HEAD" });
    expect(shell.result.output).toMatch(/Read-only file system/);
    expect(existsSync(join(h.workspace, ".aide", "evil"))).toBe(false);
  });

  it("writes through an inside symlink land inside, at the link's target", async () => {
    const reply = await h.exec("write_file", { path: "inner-link/through.txt", content: "ok\n" });
    expect(reply.result.is_error).toBe(false);
    expect(reply.result.changed_paths).toEqual(["inner/through.txt"]);
    expect(readFileSync(join(h.workspace, "inner", "through.txt"), "utf8")).toBe("ok\n");
  });

  it("refuses a workspace outside AIDE_WORKSPACE_ROOTS", async () => {
    const limited = await startToolsHarness({ env: { AIDE_WORKSPACE_ROOTS: "/nonexistent-root" } });
    try {
      const reply = await limited.exec("read_file", { path: "x" });
      expect(reply.ok).toBe(false);
      expect(reply.error.code).toBe("WORKSPACE_NOT_ALLOWED");
    } finally {
      await limited.stop();
    }
  });
});
