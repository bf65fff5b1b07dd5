import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWorkspace, type Workspace } from "./workspace.js";

describe("the jail's file operations", () => {
  let scratch: string;
  let root: string;
  let workspace: Workspace;
  beforeAll(async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "aide-jail-files-")));
    root = join(scratch, "ws");
    mkdirSync(join(root, "src"), { recursive: true });
    mkdirSync(join(scratch, "outside"));
    writeFileSync(join(scratch, "outside", "target.txt"), "outside\n");
    writeFileSync(join(root, "src", "a.txt"), "a\n", { mode: 0o750 });
    symlinkSync(join(scratch, "outside"), join(root, "out"));
    symlinkSync(join(scratch, "outside", "target.txt"), join(root, "out-file"));
    symlinkSync("src", join(root, "src-link"));
    workspace = await openWorkspace(root, []);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("writes keep the file's mode, create missing folders inside, and leave no temporary", async () => {
    await workspace.writeFile("src/a.txt", Buffer.from("b\n"));
    expect(readFileSync(join(root, "src", "a.txt"), "utf8")).toBe("b\n");
    expect(lstatSync(join(root, "src", "a.txt")).mode & 0o777).toBe(0o750);
    await workspace.writeFile("src-link/new/deeper/c.txt", Buffer.from("c\n"));
    expect(readFileSync(join(root, "src", "new", "deeper", "c.txt"), "utf8")).toBe("c\n");
    expect(readdirSync(join(root, "src")).filter((name) => name.includes(".aide-"))).toEqual([]);
    await expect(workspace.writeFile("src", Buffer.from("x"))).rejects.toMatchObject({ code: "EISDIR" });
    await expect(workspace.writeFile("out/new.txt", Buffer.from("x"))).rejects.toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    await expect(workspace.writeFile("out-file", Buffer.from("x"))).rejects.toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    expect(readdirSync(join(scratch, "outside"))).toEqual(["target.txt"]);
  });

  it("removes a symlink itself, never its target, and renames only inside", async () => {
    await workspace.removeFile("out-file");
    expect(existsSync(join(root, "out-file"))).toBe(false);
    expect(readFileSync(join(scratch, "outside", "target.txt"), "utf8")).toBe("outside\n");
    await workspace.renameFile("src/a.txt", "moved/a.txt");
    expect(readFileSync(join(root, "moved", "a.txt"), "utf8")).toBe("b\n");
    expect(existsSync(join(root, "src", "a.txt"))).toBe(false);
    await expect(workspace.renameFile("moved/a.txt", "out/a.txt")).rejects.toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    await expect(workspace.removeFile("out/target.txt")).rejects.toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    await expect(workspace.removeFile("nothing-here")).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(join(scratch, "outside"))).toEqual(["target.txt"]);
  });

  it("opens files and directories by descriptor and says what a path is", async () => {
    const file = await workspace.openFile("src-link/new/deeper/c.txt");
    expect(file.kind).toBe("file");
    if (file.kind === "file") {
      expect(file.relative).toBe("src/new/deeper/c.txt");
      expect(await file.handle.readFile("utf8")).toBe("c\n");
      await file.handle.close();
    }
    expect((await workspace.openFile("src")).kind).toBe("directory");
    expect((await workspace.openFile("src/none.txt")).kind).toBe("missing");
    const directory = await workspace.openDirectory("src-link");
    expect(directory.kind).toBe("directory");
    if (directory.kind === "directory") {
      expect(directory.relative).toBe("src");
      expect(
        directory.handle
          .entries()
          .map((entry) => entry.name)
          .sort(),
      ).toEqual(["new"]);
      directory.handle.close();
    }
    expect((await workspace.openDirectory("moved/a.txt")).kind).toBe("not-directory");
    await expect(workspace.openDirectory("out")).rejects.toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
  });
});
