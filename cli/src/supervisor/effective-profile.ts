import { readFileSync, readlinkSync } from "node:fs";
import type { ServiceName } from "@aide/contracts";
import { sandboxProfiles } from "./sandbox-profiles.js";

/** Linux capability numbers → names, for the ones a profile may keep or a reader should notice. */
const capabilityNames: Record<number, string> = {
  0: "CAP_CHOWN",
  1: "CAP_DAC_OVERRIDE",
  2: "CAP_DAC_READ_SEARCH",
  3: "CAP_FOWNER",
  5: "CAP_KILL",
  6: "CAP_SETGID",
  7: "CAP_SETUID",
  8: "CAP_SETPCAP",
  12: "CAP_NET_ADMIN",
  13: "CAP_NET_RAW",
  18: "CAP_SYS_CHROOT",
  19: "CAP_SYS_PTRACE",
  21: "CAP_SYS_ADMIN",
  25: "CAP_SYS_TIME",
  38: "CAP_PERFMON",
  39: "CAP_BPF",
};

export function decodeCapabilities(hex: string): string[] {
  const value = BigInt(`0x${hex}`);
  const names: string[] = [];
  for (let bit = 0n; bit < 64n; bit++) {
    if (value & (1n << bit)) names.push(capabilityNames[Number(bit)] ?? `cap${bit}`);
  }
  return names;
}

export interface EffectiveProfile {
  service: string;
  pid: number;
  sandboxed: boolean;
  capabilities: string[];
  namespaces: Record<string, "own" | "shared">;
  workspace: string;
  why: string;
}

/** What a running service process really has: read from /proc, beside what its profile declares. */
export function effectiveProfile(service: ServiceName, pid: number, sandboxed: boolean): EffectiveProfile {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const capabilities = decodeCapabilities(/CapEff:\s*([0-9a-f]+)/.exec(status)?.[1] ?? "0");
  const namespaces: Record<string, "own" | "shared"> = {};
  for (const kind of ["pid", "ipc", "uts", "mnt", "net"]) {
    try {
      namespaces[kind] = readlinkSync(`/proc/${pid}/ns/${kind}`) === readlinkSync(`/proc/self/ns/${kind}`) ? "shared" : "own";
    } catch {
      namespaces[kind] = "shared";
    }
  }
  const profile = sandboxProfiles[service];
  const workspace = profile.workspace === "hidden" ? "hidden" : `read-write (read-only: ${profile.readOnlyInWorkspace.join(", ") || "none"})`;
  return { service, pid, sandboxed, capabilities, namespaces, workspace: sandboxed ? workspace : "unrestricted (unsandboxed)", why: profile.why };
}
