/**
 * The start every command and MCP-server sandbox shares: killed with its parent, a new session
 * (no TIOCSTI), no capabilities, fresh pid/ipc/uts (and cgroup, where it can) namespaces, no
 * network namespace of the host's unless `network`, the host read-only, and private /tmp, /var/tmp,
 * /run and a /tmp/home. The service sandboxes of the supervisor differ (they keep the host's
 * network namespace for the loopback bus), so they build their own.
 */
export function isolatedProcessArguments(network: boolean): string[] {
  const args = ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
  if (!network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run", "--dir", "/tmp/home");
  return args;
}
