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
