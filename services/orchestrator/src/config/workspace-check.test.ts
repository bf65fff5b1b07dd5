import { describe, expect, it } from "vitest";
import { checkWorkspace } from "./workspace-check.js";

describe("checkWorkspace", () => {
  it("accepts a workspace inside a root and normalizes it", () => {
    expect(checkWorkspace("/srv/ws/a/../b", ["/srv/ws"])).toBe("/srv/ws/b");
    expect(checkWorkspace("/srv/ws", ["/srv/ws"])).toBe("/srv/ws");
  });
  it("refuses a workspace outside the roots with WORKSPACE_NOT_ALLOWED", () => {
    expect(() => checkWorkspace("/srv/wsx", ["/srv/ws"])).toThrow(expect.objectContaining({ code: "WORKSPACE_NOT_ALLOWED" }));
    expect(() => checkWorkspace("/srv/ws/../etc", ["/srv/ws"])).toThrow(expect.objectContaining({ code: "WORKSPACE_NOT_ALLOWED" }));
  });
  it("refuses a relative path", () => {
    expect(() => checkWorkspace("ws", [])).toThrow(expect.objectContaining({ code: "WORKSPACE_NOT_FOUND" }));
  });
  it("accepts any absolute workspace when no roots are configured", () => {
    expect(checkWorkspace("/tmp/x", [])).toBe("/tmp/x");
  });
});

describe("checkWorkspace: folders too broad for a session", () => {
  const home = "/home/u";
  it("refuses / and $HOME whatever the setting", () => {
    for (const allowHomeWorkspace of [false, true]) {
      for (const workspace of ["/", "/home/u", "/home/u/", "/home/u/x/.."]) {
        expect(() => checkWorkspace(workspace, { roots: [], home, allowHomeWorkspace }), workspace).toThrow(expect.objectContaining({ code: "WORKSPACE_TOO_BROAD" }));
      }
    }
  });
  it("refuses ~/Documents, ~/Desktop and ~/Downloads unless allow_home_workspace, and accepts projects inside them", () => {
    for (const folder of ["Documents", "Desktop", "Downloads"]) {
      expect(() => checkWorkspace(`/home/u/${folder}`, { roots: [], home })).toThrow(expect.objectContaining({ code: "WORKSPACE_TOO_BROAD" }));
      expect(checkWorkspace(`/home/u/${folder}`, { roots: [], home, allowHomeWorkspace: true })).toBe(`/home/u/${folder}`);
      expect(checkWorkspace(`/home/u/${folder}/app`, { roots: [], home })).toBe(`/home/u/${folder}/app`);
    }
  });
});
