import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AideError } from "@aide/contracts";
import { openWorkspace, type Workspace } from "./workspace.js";

describe("the jail's path walk (resolveBeneath through Workspace.resolve)", () => {
  let workspace: Workspace;
  const resolveJailedPath = (_root: string, input: string) => workspace.resolve(input);
  let scratch: string;
  let root: string;
  beforeAll(async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-jail-")));
    root = join(scratch, "ws");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    mkdirSync(join(scratch, "out", "deep"), { recursive: true });
    writeFileSync(join(root, "a", "file.txt"), "x");
    symlinkSync(join(scratch, "out", "deep"), join(root, "to-deep"));
    symlinkSync("a/b", join(root, "rel-link"));
    symlinkSync("loop2", join(root, "loop1"));
    symlinkSync("loop1", join(root, "loop2"));
    symlinkSync("../../a", join(root, "a", "b", "back"));
    symlinkSync("../ws/a", join(root, "out-and-back"));
    symlinkSync(join(root, "a"), join(root, "absolute-inside"));
    workspace = await openWorkspace(root, []);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const code = async (input: string) => {
    try {
      await resolveJailedPath(root, input);
      return "OK";
    } catch (error) {
      return error instanceof AideError ? error.code : String(error);
    }
  };

  it("resolves ordinary, new and nested new paths inside", async () => {
    expect((await resolveJailedPath(root, "a/file.txt")).relative).toBe("a/file.txt");
    expect((await resolveJailedPath(root, "a/new/deeper.txt")).stats).toBeNull();
    expect((await resolveJailedPath(root, "./a//b/")).relative).toBe("a/b");
    expect((await resolveJailedPath(root, ".")).relative).toBe(".");
  });

  it("follows relative links and links that come back inside", async () => {
    expect((await resolveJailedPath(root, "rel-link")).relative).toBe("a/b");
    expect((await resolveJailedPath(root, "a/b/back/file.txt")).relative).toBe("a/file.txt");
    expect((await resolveJailedPath(root, "out-and-back/file.txt")).relative).toBe("a/file.txt");
    expect((await resolveJailedPath(root, "absolute-inside/b")).relative).toBe("a/b");
  });

  it("refuses what the kernel would resolve outside", async () => {
    expect(await code("to-deep/../x")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await code("to-deep")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await code("../ws/../out")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await code("/")).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses malformed paths", async () => {
    expect(await code("loop1")).toBe("PATH_INVALID");
    expect(await code("a/file.txt/child")).toBe("PATH_INVALID");
    expect(await code("missing/../../x")).toBe("PATH_INVALID");
    expect(await code("~root/x")).toBe("PATH_INVALID");
    expect(await code("")).toBe("PATH_INVALID");
  });

  it("accepts lexical .. that stays inside and an absolute path under the root", async () => {
    expect((await resolveJailedPath(root, "a/b/../file.txt")).relative).toBe("a/file.txt");
    expect((await resolveJailedPath(root, join(root, "a"))).relative).toBe("a");
    expect((await resolveJailedPath(root, "../ws/a")).relative).toBe("a");
  });
});
