/**
 * How a peer agent (aider, mini-swe-agent) runs in this bench: as its own command, on the host's
 * toolchains, but inside bubblewrap with the attempt's workspace and a fresh home the only
 * writable places (mini-swe-agent runs every command the model writes, unconfirmed, and aider
 * runs with --yes-always: a small model's `rm` must not reach the machine's files). The network
 * is shared, as the agents need the loopback proxy; nothing else is offered to them. The
 * toolchains find their homes (RUSTUP_HOME, PYENV_ROOT) as the hidden checks do, Go stays offline.
 */
import { toolchainHomes } from "@aide/runtime";

export interface PeerSandbox {
  workspace: string;
  home: string;
}

export function sandboxArgs(sandbox: PeerSandbox, command: string[]): string[] {
  return [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--bind",
    sandbox.home,
    sandbox.home,
    "--bind",
    sandbox.workspace,
    sandbox.workspace,
    "--chdir",
    sandbox.workspace,
    "--",
    ...command,
  ];
}

export function sandboxEnv(sandbox: PeerSandbox, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: sandbox.home,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    PYTHONUNBUFFERED: "1",
    ...toolchainHomes(process.env).env,
    GOTOOLCHAIN: "local",
    GOPROXY: "off",
    // litellm (in both agents) fetches its model price list from the web unless told to use its own copy.
    LITELLM_LOCAL_MODEL_COST_MAP: "True",
    ...extra,
  };
}
