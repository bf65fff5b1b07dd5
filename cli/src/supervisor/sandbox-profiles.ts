import type { ServiceName } from "@aide/contracts";
import type { SandboxProfile } from "@aide/runtime";

export type { SandboxProfile } from "@aide/runtime";

/**
 * What each service process may touch: the one table to read when reviewing the sandbox (what every
 * profile shares is said at runtime's `SandboxProfile`, and runtime's `serviceSandboxArguments`
 * turns a profile into bubblewrap arguments).
 */
export const sandboxProfiles: Record<ServiceName, SandboxProfile> = {
  orchestrator: {
    workspace: "hidden",
    readOnlyInWorkspace: [],
    aideHomePaths: [],
    capabilities: [],
    why: "keeps its state in JetStream; talks to the workspace only through the tools and checkpoints services",
  },
  gateway: {
    workspace: "hidden",
    readOnlyInWorkspace: [],
    // eval: `aide eval`'s run folders, for GET /api/eval/latest (read-only).
    aideHomePaths: [{ path: "eval", access: "read-only" }],
    capabilities: [],
    why: "reads only its token file and the eval reports, and serves the panel from the install directory",
  },
  model: {
    workspace: "hidden",
    readOnlyInWorkspace: [],
    // model-state: the capability probe's cached profiles (the service's only writable place).
    aideHomePaths: [
      { path: "models", access: "read-only" },
      { path: "model-state", access: "read-write" },
    ],
    capabilities: [],
    why: "parses untrusted model files: sees the model files and nothing of the user's code; discovers model servers on loopback (shared network namespace)",
  },
  checkpoints: {
    workspace: "read-write",
    readOnlyInWorkspace: [".git"],
    aideHomePaths: [],
    capabilities: [],
    why: "writes shadow repositories under .aide/checkpoints and restores files; never any .git",
  },
  tools: {
    workspace: "read-write",
    readOnlyInWorkspace: [".aide", ".git/hooks"],
    // The call journal: a mutating call id answered again after a restart, never run twice.
    aideHomePaths: [{ path: "tools-state", access: "read-write" }],
    // The model's commands and the checkers run the project's own toolchain (cargo, go, pytest…).
    toolchains: true,
    // bubblewrap needs these to build each command's sandbox inside this one (measured: a nested
    // bwrap fails with every capability dropped; SYS_ADMIN for the namespaces and mounts,
    // NET_ADMIN to bring up the command's loopback, SETPCAP to drop the command's capabilities).
    capabilities: ["CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETPCAP"],
    why: "runs the model's commands, each in its own bubblewrap sandbox with no network",
  },
  mcp: {
    // MCP servers declared to write the workspace get it read-write in their own sandbox; every
    // other server sees it read-only there. `.aide` and git hooks stay read-only either way.
    workspace: "read-write",
    readOnlyInWorkspace: [".aide", ".git/hooks"],
    // mcp-state: the servers' states for aide doctor; mcp-secrets: the 0600 files servers' secrets come from.
    // mcp-trust: the person's trust records for workspace .mcp.json files (a folder, so a trust
    // given while the service runs is seen). mcp.json is bound read-only by the launcher at each start.
    aideHomePaths: [
      { path: "mcp-state", access: "read-write" },
      { path: "mcp-secrets", access: "read-only" },
      { path: "mcp-trust", access: "read-only" },
    ],
    // As for the tools service: bubblewrap needs these to build each MCP server's own sandbox.
    capabilities: ["CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETPCAP"],
    why: "runs MCP servers (arbitrary code), each in its own bubblewrap sandbox: no network unless consented, workspace read-only unless declared",
  },
};
