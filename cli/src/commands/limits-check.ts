/** `aide doctor`'s check of the per-command limits: what `aide up` would delegate, tried for real. */
import { delegateCgroups } from "@aide/runtime";

/** One line of `aide doctor` (its Check). */
interface LimitsCheck {
  name: "limits";
  ok: boolean;
  detail: string;
  fix?: string;
  required: false;
}

/**
 * Delegates a cgroup as `aide up` does for the tools service, and gives it back at once. Off is a
 * loud warning with its stable code: commands and MCP servers would run without memory and
 * process limits (or be refused, AIDE_TOOLS_COMMAND_LIMITS=required).
 */
export function limitsCheck(): LimitsCheck {
  const delegation = delegateCgroups("doctor");
  delegation.release();
  if (delegation.hierarchy === "none") {
    return {
      name: "limits",
      ok: false,
      detail: `SANDBOX_LIMITS_UNAVAILABLE: per-command memory and process limits are OFF — ${delegation.reason ?? "no cgroup could be delegated"}`,
      fix: "run aide up as root on a cgroup v1 host, or in a delegated cgroup v2 scope: systemd-run --user --scope -p Delegate=yes aide up",
      required: false,
    };
  }
  return { name: "limits", ok: true, detail: `cgroup ${delegation.hierarchy}${delegation.reason ? ` (${delegation.reason})` : ""}`, required: false };
}
