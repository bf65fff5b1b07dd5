import { runService } from "@aide/runtime";
import type { ErrorCode } from "@aide/contracts";
import { createToolsService } from "./create-tools-service.js";
import { readSettings } from "./service-options.js";
import { createToolRegistry } from "./framework/tool-registry.js";
import { allTools } from "./tools/catalog.js";
import { createSandbox } from "./sandbox/create-sandbox.js";
import { createProcessRegistry } from "./sandbox/process-registry.js";
import { createLintGate } from "./lint/create-lint-gate.js";
import { createCallStore } from "./framework/call-store.js";
import { execaSync } from "execa";
import { realpath } from "node:fs/promises";
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ripgrepInMountJail } from "./search/ripgrep-jail.js";
import { CodeIntelligence } from "./code/code-intelligence.js";
import { TypeScriptChecker } from "./code/typescript-checker.js";
import { commandInMountJail, defaultWorkerScript, plainCommand, plainWorker, pyrightLanguageServer, workerInMountJail } from "./code/diagnostics-worker-command.js";
import { diagnoseEdit } from "./code/edit-diagnostics.js";
import { PyrightChecker } from "./code/pyright-checker.js";
import { CheckerSet } from "./code/checker-set.js";
import { GoVetChecker } from "./code/go-vet-checker.js";
import { GoplsChecker, findGopls, goplsJailFolders } from "./code/gopls-checker.js";
import { SyntaxChecker } from "./code/syntax-checker.js";
import { findProgram } from "./code/find-program.js";

/** The absolute path of `rg` when it runs, for its mount jail. */
function findRipgrep(): string | undefined {
  try {
    const found = execaSync("sh", ["-c", "command -v rg"], { reject: false, timeout: 5000 });
    const path = String(found.stdout).trim();
    if (found.exitCode !== 0 || !path.startsWith("/")) return undefined;
    return execaSync(path, ["--version"], { reject: false, timeout: 5000 }).exitCode === 0 ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

await runService("tools", async ({ connection, logger }) => {
  const settings = readSettings(process.env, process.argv.slice(2));
  const workspaceRoots = await Promise.all(settings.workspaceRoots.map((root) => realpath(root).catch(() => root)));
  // Without a state folder the build caches live for this process only (removed at stop).
  const scratchCaches = join(tmpdir(), `aide-tools-${process.pid}`);
  const sandbox = await createSandbox({
    unsafeNoSandbox: settings.unsafeNoSandbox,
    logger: logger.child({ module: "sandbox" }),
    workspaceRoots,
    maxProcesses: settings.commands.maxProcesses,
    maxMemoryBytes: settings.commands.maxMemoryBytes,
    maxFileSizeBytes: settings.commands.maxFileSizeBytes,
    maxConcurrentCommands: settings.commands.maxConcurrent,
    maxQueuedCommands: settings.commands.maxQueued,
    maxQueuedCommandsPerSession: settings.commands.maxQueuedPerSession,
    commandLimits: settings.commands.limits,
    cgroupRoot: settings.commands.cgroupRoot,
    preparedJails: settings.commands.preparedJails,
    spawnHelper: settings.commands.spawnHelper,
    // Each workspace's commands keep Go's build cache here, apart from go vet's and from the workspace.
    buildCacheDirectory: join(settings.stateDirectory ?? scratchCaches, "command-caches"),
  });
  const processes = createProcessRegistry({ sandbox, logger: logger.child({ module: "processes" }) });
  const sweeper = setInterval(() => void processes.sweep(), 60_000);
  sweeper.unref();
  const calls = await createCallStore({ directory: settings.stateDirectory, maxEntries: settings.callStoreEntries, logger: logger.child({ module: "call-store" }) });
  // ripgrep only in its mount jail; without bubblewrap the JavaScript search (which reads through the path jail).
  const ripgrep = settings.forceJavascriptSearch || sandbox.mode !== "bwrap" ? undefined : findRipgrep();
  const code = new CodeIntelligence();
  // The checker reads the workspace by name, so it runs in a mount jail of its own when bubblewrap is there.
  const workerScript = settings.diagnostics.workerScript ?? defaultWorkerScript;
  const checker = new TypeScriptChecker({
    command: sandbox.mode === "bwrap" ? workerInMountJail(workerScript) : plainWorker(workerScript),
    logger: logger.child({ module: "typescript-checker" }),
    timeoutMs: settings.diagnostics.timeoutMs,
    idleMs: settings.diagnostics.idleMs,
  });
  const jailed = sandbox.mode === "bwrap";
  const pyrightArgv = settings.diagnostics.pyrightCommand ?? [realpathSync(process.execPath), pyrightLanguageServer, "--stdio"];
  const python = settings.diagnostics.pyright
    ? new PyrightChecker({
        command: jailed ? commandInMountJail(pyrightArgv) : plainCommand(pyrightArgv),
        logger: logger.child({ module: "pyright" }),
        timeoutMs: settings.diagnostics.timeoutMs,
        idleMs: settings.diagnostics.idleMs,
      })
    : undefined;
  // gopls (warm, in its mount jail) when it and `go` are there; go vet when only `go` is; otherwise the syntax check, saying so.
  // Looked for once, on the first .go file: most workspaces never need it.
  const goChecker = () => {
    const go = findProgram("go", ["version"]);
    const goplsSetting = settings.diagnostics.gopls;
    const goplsArgv = goplsSetting === "off" ? undefined : goplsSetting === "auto" ? ((found) => (found !== undefined ? [found, "serve"] : undefined))(findGopls()) : goplsSetting;
    logger.info({ go: go ?? null, gopls: goplsArgv?.[0] ?? null, gopls_setting: Array.isArray(goplsSetting) ? "command" : goplsSetting }, "go checker");
    // Go's build cache survives restarts in the state folder (a cold standard library takes a minute to compile).
    const caches = settings.stateDirectory ?? scratchCaches;
    const cacheDirectory = join(caches, "go-build");
    const modCache = join(process.env.HOME ?? "/root", "go", "pkg", "mod");
    if (go !== undefined && goplsArgv !== undefined) {
      const goplsCache = join(caches, "gopls-cache");
      mkdirSync(cacheDirectory, { recursive: true });
      mkdirSync(goplsCache, { recursive: true });
      const command = jailed ? commandInMountJail(goplsArgv, goplsJailFolders(go, modCache), { writable: [cacheDirectory, goplsCache] }) : plainCommand(goplsArgv);
      return {
        checker: new GoplsChecker({
          command,
          goCache: cacheDirectory,
          goplsCache,
          ...(existsSync(modCache) ? { modCache } : {}),
          timeoutMs: settings.diagnostics.timeoutMs,
          idleMs: settings.diagnostics.idleMs,
          logger: logger.child({ module: "gopls" }),
        }),
      };
    }
    if (go !== undefined) return { checker: new GoVetChecker({ go, jailed, cacheDirectory, timeoutMs: settings.diagnostics.timeoutMs, logger: logger.child({ module: "go-vet" }) }) };
    const unavailable = {
      reason: "GO_CHECKER_ABSENT" satisfies ErrorCode,
      message: `No Go checker is available (go${goplsArgv === undefined ? " and gopls are" : " is"} not on PATH in the tools sandbox): only tree-sitter's syntax check ran, so types and vet findings were not checked.`,
    };
    return { checker: new SyntaxChecker(code.parsers, unavailable), unavailable };
  };
  const checkers = new CheckerSet({ typescript: checker, ...(python !== undefined ? { python } : {}), go: goChecker });
  const service = await createToolsService({
    connection,
    logger,
    maxConcurrent: settings.maxConcurrent,
    maxQueued: settings.maxQueued,
    maxQueuedPerSession: settings.maxQueuedPerSession,
    queueWaitMs: settings.queueWaitMs,
    calls,
    dependencies: {
      registry: createToolRegistry(allTools({ code, checkers, ripgrep: ripgrep !== undefined, ...(ripgrep !== undefined ? { ripgrepCommand: ripgrepInMountJail(ripgrep) } : {}) })),
      sandbox,
      processes,
      lint: createLintGate(),
      logger: logger.child({ module: "calls" }),
      workspaceRoots: settings.workspaceRoots,
      now: () => performance.now(),
      code,
      ...(settings.diagnostics.enabled ? { diagnoseEdit: (changes, context) => diagnoseEdit(checkers, changes, context, settings.diagnostics.waitMs) } : {}),
    },
  });
  logger.info({ sandbox: sandbox.mode, workspace_roots: settings.workspaceRoots, state_directory: calls.directory ?? "(memory only)" }, "tools service started");
  return async () => {
    clearInterval(sweeper);
    await service.stop();
    await calls.close();
    await processes.closeAll();
    checkers.close();
    await sandbox.close();
    if (settings.stateDirectory === undefined) rmSync(scratchCaches, { recursive: true, force: true });
  };
});
