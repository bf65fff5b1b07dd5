import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findProgram } from "./find-program.js";
import { LspChecker, type LspCheckerOptions } from "./lsp-checker.js";

export interface GoplsCheckerOptions extends Omit<LspCheckerOptions, "env"> {
  /**
   * Go's build cache and gopls's own file cache: the service's folders (its state folder), never
   * the workspace; the only places the jailed server may write.
   */
  goCache: string;
  goplsCache: string;
  /** Go's module cache, read-only (absent: GOPROXY=off makes a missing dependency an error). */
  modCache?: string;
}

/** The folders gopls must see in its mount jail beside the system ones: Go's root (gopls runs `go list`) and the module cache. */
export function goplsJailFolders(go: string, modCache: string | undefined): string[] {
  return [join(go, "..", ".."), ...(modCache !== undefined && existsSync(modCache) ? [modCache] : [])];
}

/**
 * gopls (`gopls serve`), one warm per workspace root: type errors and its analyzers (vet's
 * printf among them). It publishes a version's diagnostics twice, the type check first and the
 * analyzers' findings after, so each text waits for gopls's own `gopls.diagnose_files` command,
 * which answers once both are out, and takes what was published last. Offline: GOPROXY=off (a
 * missing dependency is an error, never a download), the local toolchain only, telemetry off.
 */
export class GoplsChecker extends LspChecker {
  constructor(options: GoplsCheckerOptions) {
    const { goCache, goplsCache, modCache, ...rest } = options;
    // Go's telemetry off for gopls: without it, gopls starts a second process (the telemetry
    // child) that this check never needs. Its mode file lives under the config folder, ours.
    const configHome = join(goplsCache, "config");
    mkdirSync(join(configHome, "go", "telemetry"), { recursive: true });
    writeFileSync(join(configHome, "go", "telemetry", "mode"), "off\n");
    super(
      {
        source: "gopls",
        languageId: "go",
        settle: (connection, uri) => connection.request("workspace/executeCommand", { command: "gopls.diagnose_files", arguments: [{ Files: [uri] }] }),
      },
      {
        ...rest,
        env: {
          ...process.env,
          GOCACHE: goCache,
          GOPLSCACHE: goplsCache,
          GOPROXY: "off",
          GOTOOLCHAIN: "local",
          GOTELEMETRY: "off",
          XDG_CONFIG_HOME: configHome,
          GOFLAGS: "",
          ...(modCache !== undefined ? { GOMODCACHE: modCache } : {}),
        },
      },
    );
  }
}

/**
 * gopls where `scripts/install.sh` puts it or a Go user has it: on PATH, else in `$GOBIN` or
 * `$GOPATH/bin` (default `~/go/bin`, where `go install` writes). Undefined when none answers
 * `gopls version`.
 */
export function findGopls(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const onPath = findProgram("gopls", ["version"], env);
  if (onPath !== undefined) return onPath;
  const home = env.HOME ?? "/root";
  const gopath = (env.GOPATH ?? "").split(":")[0] || join(home, "go");
  for (const folder of [env.GOBIN, join(gopath, "bin")]) {
    if (folder === undefined || folder === "" || !existsSync(join(folder, "gopls"))) continue;
    const found = findProgram("gopls", ["version"], { ...env, PATH: folder });
    if (found !== undefined) return found;
  }
  return undefined;
}
