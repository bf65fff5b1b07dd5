import { toolchainHomes } from "@aide/runtime";

/**
 * The whole environment a sandboxed command gets: an allow-list, never the service's own (no bus
 * credentials, gateway token or API keys). PATH is kept (not a secret) minus relative entries, and
 * the toolchains installed under the service's home are told where they live (RUSTUP_HOME,
 * PYENV_ROOT), since the command's HOME is another one.
 */
export function sandboxEnvironment(serviceEnv: NodeJS.ProcessEnv, extra: Record<string, string> = {}): Record<string, string> {
  const path =
    (serviceEnv.PATH ?? "")
      .split(":")
      .filter((entry) => entry.startsWith("/"))
      .join(":") || "/usr/local/bin:/usr/bin:/bin";
  return {
    PATH: path,
    HOME: "/tmp/home",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
    ...toolchainHomes(serviceEnv).env,
    ...extra,
  };
}

/** Secret stores under the home directory, hidden inside the sandbox (a tmpfs or /dev/null over them). */
export function secretPaths(home: string | undefined, serviceEnv: NodeJS.ProcessEnv): string[] {
  const paths: string[] = [];
  if (home) {
    for (const name of [
      ".ssh",
      ".aws",
      ".gnupg",
      ".config/gh",
      ".config/gcloud",
      ".azure",
      ".docker",
      ".kube",
      ".netrc",
      ".git-credentials",
      ".npmrc",
      ".pypirc",
      ".aide",
      ".config/aide",
      ".local/share/aide",
      ".bash_history",
      ".node_repl_history",
      ".python_history",
      ".cargo/credentials",
      ".cargo/credentials.toml",
    ]) {
      paths.push(`${home}/${name}`);
    }
  }
  // The supervisor's state: credentials, the gateway token, the JetStream store.
  if (serviceEnv.AIDE_HOME && serviceEnv.AIDE_HOME.startsWith("/")) paths.push(`${serviceEnv.AIDE_HOME.replace(/\/$/, "")}/run`);
  if (serviceEnv.AIDE_GATEWAY_TOKEN_FILE && serviceEnv.AIDE_GATEWAY_TOKEN_FILE.startsWith("/")) paths.push(serviceEnv.AIDE_GATEWAY_TOKEN_FILE);
  const creds = serviceEnv.AIDE_NATS_CREDS;
  if (creds && creds.startsWith("/")) paths.push(creds, creds.replace(/\/[^/]*$/, ""));
  for (const extra of (serviceEnv.AIDE_SANDBOX_HIDE ?? "").split(":")) if (extra.startsWith("/")) paths.push(extra);
  return [...new Set(paths)];
}
