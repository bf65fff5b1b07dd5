import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Logger } from "pino";
import type { Diagnostic } from "./diagnostic.js";
import type { WorkerCommand } from "./diagnostics-worker-command.js";
import type { CheckOutcome, Checker } from "./checker.js";
import { LspConnection, type ServerMessage } from "./lsp-connection.js";

interface LspDiagnostic {
  range: { start: { line: number; character: number } };
  message: string;
  severity?: number;
  code?: string | number;
  /** Who found it (gopls: `compiler`, or the analyzer's name, `printf`). */
  source?: string;
}

interface Server {
  child: ChildProcess;
  connection: LspConnection;
  ready: Promise<void>;
  /** Checks of one workspace run one after the other (each opens, changes and closes its file). */
  queue: Promise<unknown>;
  /** Waiting for the diagnostics of `file\0version`. */
  published: Map<string, (diagnostics: LspDiagnostic[]) => void>;
  /** The diagnostics last published for each file. */
  latest: Map<string, LspDiagnostic[]>;
  /** Called when the server is stopped while a check waits. */
  abandon?: (message: string, timedOut: boolean) => void;
  busy: number;
  idle?: NodeJS.Timeout;
  stopped: boolean;
}

export interface LspCheckerOptions {
  /** How the language server is started (`pyright-langserver --stdio`, `gopls serve`, in its mount jail). */
  command: WorkerCommand;
  /** The server's environment; absent, the service's. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** A check (the server's start included) that takes longer kills the server; the next check starts another. */
  timeoutMs: number;
  /** A server that got no check this long is stopped. */
  idleMs: number;
  /** Warm servers at most; starting one more stops the least recently used. Default 2. */
  maxServers?: number;
}

/** What tells one language server from another here. */
export interface LspFlavour {
  /** The name results and messages carry (`pyright`, `gopls`). */
  source: string;
  /** The document's `languageId` (`python`, `go`). */
  languageId: string;
  /**
   * How a check knows the server is done with a text. Absent: its first `publishDiagnostics` that
   * names the document version (pyright publishes once per version). Given: the diagnostics last
   * published for the file once this request is answered (gopls publishes a version twice, the
   * type check first and its analyzers later, and answers `gopls.diagnose_files` after both).
   */
  settle?: (connection: LspConnection, uri: string) => Promise<unknown>;
}

/** A diagnostic as the rest of the service sees it: 1-based, one line of message, errors and warnings only. */
function describe(diagnostic: LspDiagnostic, source: string, fallbackCode: string): Diagnostic | undefined {
  if (diagnostic.severity !== 1 && diagnostic.severity !== 2) return undefined;
  const line = diagnostic.range.start.line;
  return {
    line: line + 1,
    column: diagnostic.range.start.character + 1,
    // gopls's analyzers all say code "default": the analyzer's name (`printf`) is what tells them apart.
    code:
      diagnostic.code !== undefined && diagnostic.code !== "default" ? String(diagnostic.code) : typeof diagnostic.source === "string" && diagnostic.source !== "" ? diagnostic.source : fallbackCode,
    severity: diagnostic.severity === 1 ? "error" : "warning",
    message: diagnostic.message.replace(/\s*\n\s*/g, " ").trim(),
    text: (source.split("\n")[line] ?? "").trim(),
  };
}

/** SIGKILL to the server's process group (every process of its jail), or to the server alone if that fails. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/**
 * A language server (pyright's, gopls), one per workspace root, spoken to over LSP on its stdio:
 * started on first use, reused (the program it builds stays warm), stopped when idle, killed when
 * a check passes its timeout. A check opens the file with each text in turn (`didOpen`, then
 * `didChange`) and takes the diagnostics of that text (`LspFlavour.settle` says how it knows they
 * are complete), then closes it, so the server goes back to the file on disk.
 */
export class LspChecker implements Checker {
  readonly source: string;
  private readonly servers = new Map<string, Server>();
  private documentVersion = 0;

  constructor(
    private readonly flavour: LspFlavour,
    private readonly options: LspCheckerOptions,
  ) {
    this.source = flavour.source;
  }

  private start(root: string): Server {
    const oldest = this.servers.entries().next().value as [string, Server] | undefined;
    if (oldest !== undefined && this.servers.size >= (this.options.maxServers ?? 2))
      this.stop(oldest[0], oldest[1], `too many workspaces with a warm ${this.source}; the least recently used was stopped`);
    const { file, args } = this.options.command(root);
    // A process group of its own: stopping kills the whole group, bubblewrap's namespace init with it
    // (killed in its first milliseconds, the outer bwrap left that init behind, orphaned).
    const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"], detached: true, ...(this.options.env !== undefined ? { env: this.options.env } : {}) });
    const published = new Map<string, (diagnostics: LspDiagnostic[]) => void>();
    const latest = new Map<string, LspDiagnostic[]>();
    const onNotification = (message: ServerMessage) => {
      if (message.method !== "textDocument/publishDiagnostics") return;
      const params = message.params as { uri?: string; version?: number; diagnostics?: LspDiagnostic[] } | undefined;
      if (typeof params?.uri !== "string" || typeof params.version !== "number" || !Array.isArray(params.diagnostics)) return;
      let path: string;
      try {
        path = fileURLToPath(params.uri);
      } catch {
        return;
      }
      latest.set(path, params.diagnostics);
      const key = `${path}\0${params.version}`;
      const resolve = published.get(key);
      published.delete(key);
      resolve?.(params.diagnostics);
    };
    const connection = new LspConnection(child, onNotification);
    const rootUri = pathToFileURL(root).href;
    const server: Server = { child, connection, published, latest, queue: Promise.resolve(), busy: 0, stopped: false, ready: Promise.resolve() };
    server.ready = connection
      .request("initialize", {
        // null: the server runs in a pid namespace of its own, where this process's id names nothing
        // (a language server watching a parent id it cannot see exits within seconds).
        processId: null,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: "workspace" }],
        capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } }, workspace: { configuration: true, workspaceFolders: true } },
      })
      .then(() => connection.notify("initialized", {}));
    server.ready.catch(() => undefined);
    child.stderr?.on("data", () => undefined);
    child.on("error", (error) => this.stop(root, server, `${this.source} did not start: ${error.message}`));
    child.on("exit", (code, signal) => this.stop(root, server, `${this.source} exited (${signal ?? code})`));
    this.servers.set(root, server);
    this.options.logger?.info({ root, pid: child.pid }, `${this.source} language server started`);
    return server;
  }

  private stop(root: string, server: Server, message: string, timedOut = false): void {
    if (this.servers.get(root) === server) this.servers.delete(root);
    if (server.idle !== undefined) clearTimeout(server.idle);
    const wasStopped = server.stopped;
    server.stopped = true;
    killGroup(server.child);
    if (!wasStopped) server.connection.closeAll(message);
    server.published.clear();
    server.latest.clear();
    server.abandon?.(message, timedOut);
    server.abandon = undefined;
  }

  check(root: string, path: string, versions: string[], signal?: AbortSignal): Promise<CheckOutcome> {
    const existing = this.servers.get(root);
    const server = existing !== undefined && !existing.stopped ? existing : this.start(root);
    this.servers.delete(root);
    this.servers.set(root, server);
    if (server.idle !== undefined) clearTimeout(server.idle);
    server.busy += 1;
    const run = server.queue.then(() => this.run(root, server, path, versions, signal));
    server.queue = run.catch(() => undefined);
    return run.finally(() => {
      server.busy -= 1;
      if (server.busy === 0 && !server.stopped && this.servers.get(root) === server) {
        server.idle = setTimeout(() => this.stop(root, server, "idle"), this.options.idleMs);
        server.idle.unref();
      }
    });
  }

  private run(root: string, server: Server, path: string, versions: string[], signal?: AbortSignal): Promise<CheckOutcome> {
    const pid = server.child.pid;
    const failed = (message: string, timedOut: boolean): CheckOutcome => ({ ok: false, timedOut, message, ...(pid !== undefined ? { workerPid: pid } : {}) });
    if (server.stopped) return Promise.resolve(failed(`${this.source} was stopped`, false));
    return new Promise<CheckOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: CheckOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        server.abandon = undefined;
        resolve(outcome);
      };
      server.abandon = (message, timedOut) => finish(failed(message, timedOut));
      const timer = setTimeout(() => {
        this.options.logger?.warn({ root, pid, timeout_ms: this.options.timeoutMs }, `${this.source} timed out; killed`);
        this.stop(root, server, `${this.source} did not answer in ${this.options.timeoutMs} ms and was stopped`, true);
      }, this.options.timeoutMs);
      const onAbort = () => this.stop(root, server, "the call was stopped", true);
      signal?.addEventListener("abort", onAbort, { once: true });
      const file = join(root, path);
      const uri = pathToFileURL(file).href;
      const wait = (version: number) => new Promise<LspDiagnostic[]>((done) => server.published.set(`${file}\0${version}`, done));
      void (async () => {
        await server.ready;
        const results: Diagnostic[][] = [];
        const { settle, languageId, source } = this.flavour;
        for (const [index, text] of versions.entries()) {
          const version = ++this.documentVersion;
          const answer = settle === undefined ? wait(version) : undefined;
          server.latest.delete(file);
          if (index === 0) server.connection.notify("textDocument/didOpen", { textDocument: { uri, languageId, version, text } });
          else server.connection.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
          if (settle !== undefined) await settle(server.connection, uri);
          // A server that settled without publishing anything for this text checked nothing: a failure, never "no problems".
          const found = answer !== undefined ? await answer : server.latest.get(file);
          if (found === undefined) throw new Error(`${source} published no diagnostics for ${path}`);
          results.push(found.map((diagnostic) => describe(diagnostic, text, source)).filter((diagnostic): diagnostic is Diagnostic => diagnostic !== undefined));
        }
        server.connection.notify("textDocument/didClose", { textDocument: { uri } });
        finish({ ok: true, results });
      })().catch((error: Error) => finish(failed(error.message, false)));
    });
  }

  close(): void {
    for (const [root, server] of [...this.servers]) this.stop(root, server, "the service stopped");
  }
}
