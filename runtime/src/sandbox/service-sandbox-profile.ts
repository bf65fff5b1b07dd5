/**
 * What one service process may touch; the supervisor's table of them (`sandboxProfiles`) is the
 * one to read when reviewing the sandbox. Every service runs under bubblewrap with: the system read-only (`/` bound read-only), a private
 * /tmp, new PID/IPC/UTS namespaces, a new session, `--die-with-parent`, the home directory and
 * `$AIDE_HOME` hidden (empty tmpfs) except the service's own credentials file and the bus's CA
 * certificate `run/tls/ca.pem` (read-only; the server's key stays hidden), and an
 * environment reduced to the supervisor's allow-list for that service. The network namespace is
 * shared on purpose: the bus is on loopback, and a new network namespace would cut the service off
 * from it (the tools service gives each command its own empty network namespace instead).
 */
export interface SandboxProfile {
  /** Workspace roots: hidden, readable, or writable (with the listed exceptions read-only). */
  workspace: "hidden" | "read-write";
  /** Inside each writable workspace root, these stay read-only. */
  readOnlyInWorkspace: Array<".aide" | ".git" | ".git/hooks">;
  /** Extra paths under `$AIDE_HOME` the service sees. */
  aideHomePaths: Array<{ path: "models" | "model-state" | "tools-state" | "mcp-state" | "mcp-secrets" | "mcp-trust" | "eval"; access: "read-only" | "read-write" }>;
  /**
   * The language toolchains installed under the hidden home (`~/.rustup`, `~/.pyenv`, PATH entries
   * such as `~/.cargo/bin` or `~/go/bin`) bound back read-only (runtime's `toolchainHomes`).
   */
  toolchains?: true;
  /** Linux capabilities kept (all others are dropped). */
  capabilities: string[];
  why: string;
}
