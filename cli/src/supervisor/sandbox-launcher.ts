import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { ServiceName } from "@aide/contracts";
import { installRoot } from "./aide-home.js";
import type { Launcher } from "./managed-process.js";
import { sandboxProfiles } from "./sandbox-profiles.js";
import { serviceSandboxArguments, type CgroupDelegation } from "@aide/runtime";
import type { StackSettings } from "./service-table.js";

/** Absolute paths of existing files named in a JSON config (model files, transcripts). */
export function pathsNamedIn(configFile: string | undefined): string[] {
  if (!configFile || !existsSync(configFile)) return [];
  const found: string[] = [configFile];
  const visit = (value: unknown) => {
    if (typeof value === "string") {
      if (isAbsolute(value) && existsSync(value)) found.push(value);
    } else if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value && typeof value === "object") {
      Object.values(value).forEach(visit);
    }
  };
  try {
    visit(JSON.parse(readFileSync(configFile, "utf8")));
  } catch {
    // an invalid config is the model service's to report
  }
  return found;
}

/** Starts each service inside bubblewrap with its profile from sandbox-profiles.ts. */
export function sandboxLauncher(settings: StackSettings, home: string, cgroups: Partial<Record<ServiceName, CgroupDelegation>> = {}): Launcher {
  // Computed at each (re)start: a model service restarted after models.json changed sees the files it names now.
  // Every service sees the bus's CA certificate (never its key, which only nats-server reads).
  const readOnly = (name: ServiceName): string[] => [
    ...(settings.caFile ? [settings.caFile] : []),
    ...(name === "gateway"
      ? [settings.tokenFile, ...["AIDE_GATEWAY_TLS_CERT", "AIDE_GATEWAY_TLS_KEY"].flatMap((key) => (process.env[key] ? [process.env[key] as string] : []))]
      : name === "model"
        ? pathsNamedIn(settings.modelsConfig ?? join(settings.aideHome, "models.json"))
        : []),
    // The person's MCP configuration and trust records, read-only (the service never writes them).
    ...(name === "mcp" ? [join(settings.aideHome, "mcp.json")] : []),
  ];
  return {
    command(definition, infoFd) {
      const args = serviceSandboxArguments({
        profile: sandboxProfiles[definition.name],
        env: definition.env,
        command: [process.execPath, definition.entry, ...definition.args],
        home,
        aideHome: settings.aideHome,
        installRoot,
        credentialsFile: settings.credentialFiles[definition.name] ?? "",
        workspaceRoots: settings.workspaceRoots,
        readOnly: readOnly(definition.name),
        ...(settings.busDir ? { hidden: [settings.busDir] } : {}),
        readWrite: cgroups[definition.name]?.directories ?? [],
        infoFd,
      });
      const procsFiles = cgroups[definition.name]?.procsFiles ?? [];
      if (procsFiles.length === 0) return { file: "bwrap", args, sandboxed: true };
      // Join the delegated cgroups first, so bubblewrap and the service start inside them.
      const join = procsFiles.map((file) => `echo $$ > '${file}'`).join(" && ");
      return { file: "/bin/sh", args: ["-c", `${join}; exec "$@"`, "sh", "bwrap", ...args], sandboxed: true };
    },
  };
}
