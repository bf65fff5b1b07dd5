import { describe, expect, it } from "vitest";
import { isSystemDirectory, openWorkspace } from "./workspace.js";

describe("workspace checks", () => {
  it("never accepts the system, a whole home or temp directory as a workspace", () => {
    for (const dir of ["/", "/etc", "/usr", "/tmp", "/root", "/home", "/etc/ssh", "/proc/1", "/sys/fs", "/dev/shm"]) expect(isSystemDirectory(dir, "/root"), dir).toBe(true);
    expect(isSystemDirectory("/home/u", "/home/u")).toBe(true);
    for (const dir of ["/home/u/project", "/tmp/ws", "/usr/src/app", "/srv/repo"]) expect(isSystemDirectory(dir, "/home/u"), dir).toBe(false);
  });

  it("answers WORKSPACE_NOT_ALLOWED and WORKSPACE_NOT_FOUND", async () => {
    await expect(openWorkspace("/etc", [])).rejects.toMatchObject({ code: "WORKSPACE_NOT_ALLOWED" });
    await expect(openWorkspace("/definitely/not/here", [])).rejects.toMatchObject({ code: "WORKSPACE_NOT_FOUND" });
    await expect(openWorkspace("relative/dir", [])).rejects.toMatchObject({ code: "WORKSPACE_NOT_FOUND" });
    // A file is refused as such, not as a missing folder.
    await expect(openWorkspace(process.execPath, [])).rejects.toMatchObject({ code: "WORKSPACE_NOT_A_DIRECTORY" });
  });
});
