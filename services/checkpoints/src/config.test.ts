import { describe, expect, it } from "vitest";
import type { AideError } from "@aide/contracts";
import { defaultExcludes, loadCheckpointConfig } from "./config.js";

describe("loadCheckpointConfig", () => {
  it("has safe defaults", () => {
    const config = loadCheckpointConfig({});
    expect(config.max_file_bytes).toBe(5 * 1024 * 1024);
    expect(config.commit_timeout_ms).toBe(15_000);
    expect(config.excludes).toEqual(defaultExcludes);
    expect(config.excludes).toContain("node_modules");
    expect(config.workspace_roots).toEqual([]);
    expect(config).toMatchObject({ max_concurrent: 64, max_queued: 1024 });
  });

  it("sizes the admission from the file or the environment, refusing what is not a positive integer", () => {
    expect(loadCheckpointConfig({ AIDE_CHECKPOINT_MAX_CONCURRENT: "8", AIDE_CHECKPOINT_MAX_QUEUED: "40" })).toMatchObject({ max_concurrent: 8, max_queued: 40 });
    expect(loadCheckpointConfig({ AIDE_CHECKPOINT_CONFIG: "/c.json" }, () => JSON.stringify({ max_queued: 7 }))).toMatchObject({ max_concurrent: 64, max_queued: 7 });
    for (const bad of ["0", "-3", "2.5", "many"]) {
      expect(() => loadCheckpointConfig({ AIDE_CHECKPOINT_MAX_CONCURRENT: bad })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
      expect(() => loadCheckpointConfig({ AIDE_CHECKPOINT_MAX_QUEUED: bad })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });

  it("reads a JSON file and lets the environment win", () => {
    const files: Record<string, string> = { "/etc/aide/checkpoints.json": JSON.stringify({ max_file_bytes: 1000, extra_excludes: ["*.log"], keep_tasks: 3, respect_gitignore: true }) };
    const config = loadCheckpointConfig(
      { AIDE_CHECKPOINT_CONFIG: "/etc/aide/checkpoints.json", AIDE_WORKSPACE_ROOTS: "/a:/b", AIDE_CHECKPOINT_TIMEOUT_MS: "2000", AIDE_CHECKPOINT_KEEP_TASKS: "5" },
      (path) => files[path] ?? "",
    );
    expect(config).toMatchObject({ max_file_bytes: 1000, extra_excludes: ["*.log"], keep_tasks: 5, respect_gitignore: true, workspace_roots: ["/a", "/b"], commit_timeout_ms: 2000 });
  });

  it("refuses unknown keys, bad values and unreadable files with CONFIG_INVALID", () => {
    const attempt = (env: Record<string, string>, text = "{}") => {
      try {
        loadCheckpointConfig(env, () => text);
        return "accepted";
      } catch (error) {
        return (error as AideError).code;
      }
    };
    expect(attempt({ AIDE_CHECKPOINT_CONFIG: "/x" }, '{"max_file_byte": 3}')).toBe("CONFIG_INVALID");
    expect(attempt({ AIDE_CHECKPOINT_CONFIG: "/x" }, "not json")).toBe("CONFIG_INVALID");
    expect(attempt({ AIDE_CHECKPOINT_TIMEOUT_MS: "soon" })).toBe("CONFIG_INVALID");
    expect(attempt({ AIDE_CHECKPOINT_MAX_FILE_BYTES: "-1" })).toBe("CONFIG_INVALID");
  });
});
