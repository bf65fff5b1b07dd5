import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { z } from "zod";
import { AideError, mcpToolName, type McpCallResult, type McpServerConfig, type McpServerState, type McpTool } from "@aide/contracts";
import { jsonSchemaToZod } from "../schema/json-schema-to-zod.js";
import { formatCallResult } from "./format-call-result.js";
import { renderSchemaText, renderServerText } from "./render-server-text.js";
import { resourceAndPromptTools, type ExtraTool } from "./resources-and-prompts.js";

/** A started transport and what must happen after it closed (its cgroup removed). */
export interface LaunchedServer {
  transport: Transport & { pid?: number; stderr?(): string };
  release(): Promise<void>;
}

export interface ServerConnectionOptions {
  name: string;
  config: McpServerConfig;
  origin: "home" | "workspace";
  workspace?: string;
  /** One line for `aide doctor`: what the sandbox allows. */
  sandbox: string;
  /** Starts the server's process (or HTTP session). May throw: the connection retries with back-off. */
  launch(): Promise<LaunchedServer>;
  logger: Logger;
  /** Called after every state change (the service rewrites its state file). Must not throw. */
  onChange(): void;
  backoff?: { initialMs: number; maxMs: number };
}

interface OfferedTool {
  descriptor: McpTool;
  validator: z.ZodTypeAny;
  /** Set for the resource and prompt tools aide adds; absent: a `tools/call` of the server's tool. */
  run?: ExtraTool["run"];
}

const maxTools = 500;

/**
 * One MCP server: started, its tools listed and converted, restarted with back-off when it
 * exits, killed (with its process group) and restarted when a timed-out call leaves it
 * unresponsive. Calls never throw: every failure is a result with `is_error` and a code.
 */
export class ServerConnection {
  state: McpServerState["state"] = "starting";
  restarts = 0;
  lastError: string | undefined;
  tools = new Map<string, OfferedTool>();
  /** The same tools by the server's own name (a call names that), replaced with `tools`. */
  private byTool = new Map<string, OfferedTool>();
  refused: Array<{ server: string; tool: string; reason: string }> = [];
  private client: Client | undefined;
  private launched: LaunchedServer | undefined;
  private stopped = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private ready: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: ServerConnectionOptions) {
    this.logger = options.logger.child({ server: options.name });
    if (options.config.disabled) this.state = "disabled";
  }

  get name(): string {
    return this.options.name;
  }

  get pid(): number | undefined {
    return this.launched?.transport.pid;
  }

  /** Starts the server; resolves when it is ready or has failed (a retry is then scheduled). */
  start(): Promise<void> {
    if (this.options.config.disabled || this.stopped) return Promise.resolve();
    this.ready = this.connect();
    return this.ready;
  }

  /** Resolves once the current start attempt has settled. */
  async settled(): Promise<void> {
    await this.ready;
  }

  private async connect(): Promise<void> {
    this.state = this.restarts > 0 ? "restarting" : "starting";
    this.options.onChange();
    let launched: LaunchedServer | undefined;
    try {
      launched = await this.options.launch();
      const client = new Client({ name: "aide", version: "0.1.0" }, { capabilities: {} });
      const thisLaunch = launched;
      launched.transport.onclose = () => void this.closed(thisLaunch);
      this.launched = launched;
      await client.connect(launched.transport, { timeout: 30_000 });
      this.client = client;
      await this.discover(client);
      this.state = "ready";
      this.failures = 0;
      this.lastError = undefined;
      this.logger.info({ tools: this.tools.size, refused: this.refused.length, pid: this.pid }, "MCP server ready");
    } catch (error) {
      const stderr = launched?.transport.stderr?.() ?? "";
      this.lastError = `${(error as Error).message}${stderr ? ` (stderr: ${stderr.slice(-500)})` : ""}`;
      this.logger.warn({ err: this.lastError }, "MCP server did not start");
      // Detached first, so the close below is not taken for a crash of a running server.
      if (this.launched === launched) this.launched = undefined;
      this.client = undefined;
      await launched?.transport.close().catch(() => undefined);
      await launched?.release();
      // A refusal of the configuration (a remote URL, a secret file others can read) will not heal by retrying.
      if (error instanceof AideError && (error.code === "CONFIG_INVALID" || error.code === "REMOTE_NOT_ALLOWED")) this.state = "failed";
      else this.scheduleRestart();
    }
    this.options.onChange();
  }

  private async discover(client: Client): Promise<void> {
    const tools = new Map<string, OfferedTool>();
    const refused: typeof this.refused = [];
    let cursor: string | undefined;
    const auto = new Set(this.options.config.auto_approve);
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: 30_000 });
      for (const tool of page.tools) {
        if (tools.size >= maxTools) {
          refused.push({ server: this.name, tool: tool.name, reason: `the server lists more than ${maxTools} tools; the rest are not offered` });
          continue;
        }
        const name = mcpToolName(this.name, tool.name);
        const converted = jsonSchemaToZod(tool.inputSchema);
        if (!converted.ok) {
          refused.push({ server: this.name, tool: tool.name, reason: converted.reason });
          continue;
        }
        if (tools.has(name) || name.length >= 64) {
          refused.push({
            server: this.name,
            tool: tool.name,
            reason: tools.has(name) ? `its catalog name ${name} collides with another tool of this server` : "its catalog name would be longer than 64 characters",
          });
          continue;
        }
        const readOnlyHint = tool.annotations?.readOnlyHint;
        // The model reads the description and the schema's prose: rendered like every MCP text, and counted.
        const description = renderServerText((tool.description ?? tool.title ?? "").slice(0, 2000));
        const parameters = renderSchemaText(converted.jsonSchema);
        const hidden = description.hidden + parameters.hidden + renderServerText(tool.name).hidden;
        tools.set(name, {
          validator: converted.schema,
          descriptor: {
            name,
            server: this.name,
            tool: tool.name,
            description: description.text,
            parameters: parameters.schema,
            ...(hidden > 0 ? { hidden_characters: hidden } : {}),
            ...(readOnlyHint === undefined ? {} : { read_only_hint: readOnlyHint }),
            auto_approved: auto.has("*") || auto.has(tool.name),
            ...(this.options.workspace ? { workspace: this.options.workspace } : {}),
          },
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    for (const extra of await resourceAndPromptTools(client)) {
      const name = mcpToolName(this.name, extra.tool);
      if (tools.has(name)) {
        refused.push({
          server: this.name,
          tool: extra.tool,
          reason: `the server has a tool of this name, so its ${extra.tool === "aide_read_resource" ? "resources" : "prompts"} are not offered by aide`,
        });
        continue;
      }
      // Its description lists the server's resource names and prompt descriptions: server text too.
      const description = renderServerText(extra.description);
      const parameters = renderSchemaText(extra.parameters);
      const hidden = description.hidden + parameters.hidden;
      tools.set(name, {
        validator: extra.validator,
        run: extra.run,
        descriptor: {
          name,
          server: this.name,
          tool: extra.tool,
          description: description.text,
          parameters: parameters.schema,
          ...(hidden > 0 ? { hidden_characters: hidden } : {}),
          read_only_hint: true,
          auto_approved: auto.has("*") || auto.has(extra.tool),
          ...(this.options.workspace ? { workspace: this.options.workspace } : {}),
        },
      });
    }
    this.tools = tools;
    this.byTool = new Map([...tools.values()].map((entry) => [entry.descriptor.tool, entry]));
    this.refused = refused;
  }

  /** The process exited (crash, kill, or our own close): restart with back-off unless stopping. */
  private async closed(launched: LaunchedServer): Promise<void> {
    if (this.launched !== launched) return;
    this.launched = undefined;
    this.client = undefined;
    await launched.release();
    if (this.stopped) return;
    const stderr = launched.transport.stderr?.() ?? "";
    this.lastError = `the server process exited${stderr ? ` (stderr: ${stderr.slice(-500)})` : ""}`;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.stopped || this.timer) return;
    const backoff = this.options.backoff ?? { initialMs: 500, maxMs: 30_000 };
    const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** this.failures);
    this.failures += 1;
    this.restarts += 1;
    this.state = "restarting";
    this.tools = new Map();
    this.byTool = new Map();
    this.logger.warn({ delay_ms: delay, restarts: this.restarts, err: this.lastError }, "MCP server is down; restarting");
    this.options.onChange();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.start();
    }, delay);
  }

  /** Kills the server (its whole process group): used when it stopped answering. */
  private async kill(reason: string): Promise<void> {
    this.lastError = reason;
    const launched = this.launched;
    if (launched) await launched.transport.close().catch(() => undefined);
  }

  async call(tool: string, args: Record<string, unknown>, options: { timeoutMs: number; signal: AbortSignal }): Promise<McpCallResult> {
    const started = performance.now();
    // Every output (the server's result, resource or prompt, or our message quoting its error or stderr) is rendered once, here.
    const done = (result: Omit<McpCallResult, "duration_ms">): McpCallResult => ({ ...result, output: renderServerText(result.output).text, duration_ms: Math.round(performance.now() - started) });
    const fail = (error_code: string, output: string) => done({ is_error: true, output, truncated: false, error_code });
    const client = this.client;
    if (this.state !== "ready" || client === undefined) {
      return fail("MCP_SERVER_NOT_FOUND", `The MCP server ${this.name} is not ready (${this.state}${this.lastError ? `: ${this.lastError}` : ""}); try again later.`);
    }
    const offered = this.byTool.get(tool);
    if (offered === undefined) {
      const refusal = this.refused.find((entry) => entry.tool === tool);
      return refusal
        ? fail("MCP_TOOL_REFUSED", `The MCP tool ${tool} of server ${this.name} cannot be offered: ${refusal.reason}`)
        : fail("MCP_SERVER_NOT_FOUND", `The MCP server ${this.name} has no tool ${tool}.`);
    }
    const parsed = offered.validator.safeParse(args);
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 6)
        .map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`)
        .join("; ");
      return fail("MCP_ARGUMENTS_INVALID", `The arguments for MCP tool ${tool} are not valid: ${detail}. Nothing was sent to the server.`);
    }
    try {
      const requestOptions = { timeout: options.timeoutMs, signal: options.signal };
      const result = offered.run
        ? await offered.run(client, parsed.data as Record<string, unknown>, requestOptions)
        : await client.callTool({ name: tool, arguments: parsed.data as Record<string, unknown> }, undefined, requestOptions);
      const formatted = formatCallResult(result as { content?: unknown; structuredContent?: unknown; isError?: unknown });
      return done({ is_error: formatted.isError, output: formatted.output, truncated: formatted.truncated });
    } catch (error) {
      if (options.signal.aborted) return fail("MCP_CALL_CANCELLED", `The MCP call was cancelled: ${String(options.signal.reason ?? "the run was aborted")}.`);
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        void this.checkAlive();
        return fail("MCP_CALL_TIMEOUT", `The MCP server ${this.name} did not answer ${tool} within ${options.timeoutMs} ms; the call was cancelled.`);
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        const stderr = this.launched?.transport.stderr?.() ?? "";
        return fail("MCP_SERVER_FAILED", `The MCP server ${this.name} failed: it exited during the call${stderr ? ` (stderr: ${stderr.slice(-300)})` : ""}; it is being restarted.`);
      }
      return fail("MCP_SERVER_FAILED", `The MCP server ${this.name} failed: ${(error as Error).message}`);
    }
  }

  /** After a timeout: a server that does not answer a ping either is killed and restarted. */
  private async checkAlive(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await client.ping({ timeout: 5_000 });
    } catch {
      this.logger.warn("MCP server does not answer pings after a timed-out call; killing it");
      await this.kill("it stopped answering (a call timed out and a ping got no answer); killed with its process group");
    }
  }

  describe(): McpServerState {
    const config = this.options.config;
    return {
      name: this.name,
      state: config.disabled ? "disabled" : this.state,
      transport: config.type,
      origin: this.options.origin,
      sandbox: this.options.sandbox,
      tools: this.tools.size,
      restarts: this.restarts,
      ...(this.lastError ? { last_error: renderServerText(this.lastError.slice(0, 1000)).text } : {}),
      ...(this.pid !== undefined ? { pid: this.pid } : {}),
      ...(this.hiddenCharacters() > 0 ? { hidden_characters: this.hiddenCharacters() } : {}),
    };
  }

  /** Invisible or control characters in the descriptions and schemas of the tools it offers. */
  private hiddenCharacters(): number {
    let total = 0;
    for (const offered of this.tools.values()) total += offered.descriptor.hidden_characters ?? 0;
    return total;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ready?.catch(() => undefined);
    const launched = this.launched;
    this.launched = undefined;
    if (launched) {
      await launched.transport.close().catch(() => undefined);
      await launched.release();
    }
  }
}
