import { createHash } from "node:crypto";
import { ModelChatRequestSchema, type Checkpoint, type ChatMessage, type ModelChatRequest, type ModelChatResult, type ToolDescriptor, type ToolPreview, type ToolResult } from "@aide/contracts";
import type { CheckpointsPort, EgressEntry, EgressJournal, ModelPort, ToolsPort } from "../../src/bus/service-ports.js";

/** A scripted model for loop tests: replies in order, every request recorded. */
export class ScriptedModel implements ModelPort {
  readonly requests: ModelChatRequest[] = [];
  private cursor = 0;
  constructor(private readonly replies: Array<string | Partial<ModelChatResult>>) {}

  async chat(request: ModelChatRequest, onDelta: (text: string) => void): Promise<ModelChatResult> {
    this.requests.push(ModelChatRequestSchema.parse(structuredClone(request)));
    const next = this.replies[this.cursor++];
    if (next === undefined) throw new Error(`scripted model exhausted after ${this.replies.length} replies`);
    const partial = typeof next === "string" ? { text: next } : next;
    const text = partial.text ?? "";
    if (text) onDelta(text);
    return {
      request_id: request.request_id,
      model: partial.model ?? "scripted",
      text,
      tool_calls: partial.tool_calls ?? [],
      finish_reason: partial.finish_reason ?? "stop",
      usage: partial.usage ?? { prompt_tokens: 10, completion_tokens: 5 },
      timings: { total_ms: 1 },
    };
  }

  lastMessages(): ChatMessage[] {
    return this.requests.at(-1)?.messages ?? [];
  }
}

const schema = (properties: Record<string, string>, required: string[]) => ({
  type: "object",
  properties: Object.fromEntries(Object.entries(properties).map(([name, description]) => [name, { type: "string", description }])),
  required,
});

export const fakeCatalog: ToolDescriptor[] = [
  { name: "read_file", description: "Read a file", parameters: schema({ path: "path" }, ["path"]), read_only: true, parallel_safe: true, handled_by: "tools" },
  { name: "list_dir", description: "List a folder", parameters: schema({ path: "path" }, []), read_only: true, parallel_safe: true, handled_by: "tools" },
  { name: "write_file", description: "Write a file", parameters: schema({ path: "path", content: "content" }, ["path", "content"]), read_only: false, parallel_safe: false, handled_by: "tools" },
  { name: "run_command", description: "Run a command", parameters: schema({ command: "command" }, ["command"]), read_only: false, parallel_safe: false, handled_by: "tools" },
];

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * An in-memory workspace behind the tools contract: read/list/write and scripted command results
 * (`commands[cmd]`, default exit 0). Records every exec with its `network` flag and order.
 */
export class FakeTools implements ToolsPort {
  async close(session: string): Promise<void> {
    this.closed.push(session);
  }

  readonly files = new Map<string, string>();
  readonly execs: Array<{ name: string; arguments: Record<string, unknown>; network: boolean; expectedDigests?: Record<string, string> }> = [];
  readonly log: string[] = [];
  /** Sessions whose background processes the orchestrator asked to reap. */
  readonly closed: string[] = [];
  commands: Record<string, { exit: number; output: string }> = {};
  protectedPaths = new Set<string>([".github/workflows/ci.yml"]);
  /** Writes whose content contains this text fail (as a lint-gate refusal would). */
  failWritesContaining?: string;
  /** Execs of this command wait until `hold` resolves (a command "in flight"). */
  hold?: { command: string; until: Promise<void> };

  async list() {
    return fakeCatalog;
  }

  async preview(_session: string, _workspace: string, call: { id: string; name: string; arguments: Record<string, unknown> }): Promise<ToolPreview> {
    const path = String(call.arguments["path"] ?? "");
    const command = call.name === "run_command" ? String(call.arguments["command"] ?? "") : undefined;
    return {
      call_id: call.id,
      name: call.name,
      kind: command !== undefined ? "command" : "write",
      mutating: true,
      diff: command === undefined ? `--- a/${path}\n+++ b/${path}\n+${String(call.arguments["content"] ?? "")}` : undefined,
      command,
      paths: command === undefined ? [path] : [],
      protected: this.protectedPaths.has(path) ? [{ path, reason: "CI workflow" }] : [],
      invisible: [],
      network_suspected: false,
      args_digest: sha(JSON.stringify(call.arguments)),
      file_digests: command === undefined ? { [path]: this.files.has(path) ? sha(this.files.get(path)!) : "" } : {},
      notices: [],
    };
  }

  async exec(
    _session: string,
    _workspace: string,
    call: { id: string; name: string; arguments: Record<string, unknown> },
    options: { network: boolean; expectedDigests?: Record<string, string> },
  ): Promise<ToolResult> {
    this.execs.push({ name: call.name, arguments: call.arguments, network: options.network, expectedDigests: options.expectedDigests });
    this.log.push(`exec ${call.name}`);
    if (this.hold && call.arguments["command"] === this.hold.command) await this.hold.until;
    const result = (is_error: boolean, output: string, extra: Partial<ToolResult> = {}): ToolResult => ({
      call_id: call.id,
      name: call.name,
      is_error,
      output,
      metadata: {},
      notices: [],
      changed_paths: [],
      duration_ms: 0,
      ...extra,
    });
    const path = String(call.arguments["path"] ?? "");
    switch (call.name) {
      case "read_file":
        return this.files.has(path) ? result(false, this.files.get(path)!) : result(true, `No file at ${path}`);
      case "list_dir":
        return result(false, [...this.files.keys()].join("\n"));
      case "write_file":
        if (this.failWritesContaining && String(call.arguments["content"] ?? "").includes(this.failWritesContaining)) return result(true, `The result would not parse; ${path} was not written.`);
        this.files.set(path, String(call.arguments["content"] ?? ""));
        return result(false, `Wrote ${path}`, { changed_paths: [path] });
      case "run_command": {
        const command = String(call.arguments["command"] ?? "");
        const scripted = this.commands[command] ?? { exit: 0, output: "" };
        return result(scripted.exit !== 0, scripted.output || `exit ${scripted.exit}`, { metadata: { exit_code: scripted.exit, timed_out: false } });
      }
      default:
        return result(true, `No tool named ${call.name}`);
    }
  }
}

export class FakeCheckpoints implements CheckpointsPort {
  /** Workspaces the orchestrator asked to prune. */
  readonly pruned: string[] = [];
  async prune(workspace: string): Promise<void> {
    this.pruned.push(workspace);
  }

  readonly commits: Array<{ label: string; message_index?: number; changed_paths?: string[]; at: number }> = [];
  constructor(private readonly tools?: FakeTools) {}
  fail = false;
  async commit(request: { label: string; message_index?: number; changed_paths?: string[]; session: string }): Promise<Checkpoint> {
    this.tools?.log.push(`checkpoint ${request.label}`);
    if (this.fail) throw new Error("disk full");
    const id = sha(`${this.commits.length}-${request.label}`).slice(0, 40);
    this.commits.push({ label: request.label, message_index: request.message_index, changed_paths: request.changed_paths, at: this.commits.length });
    return { id, session: request.session, label: request.label, created_at: new Date(0).toISOString(), files_changed: 0, message_index: request.message_index };
  }
  async restore(): Promise<never> {
    throw new Error("not used in loop tests");
  }
}

export class FakeEgress implements EgressJournal {
  readonly entries: EgressEntry[] = [];
  fail = false;
  constructor(private readonly tools?: FakeTools) {}
  async append(entry: EgressEntry): Promise<void> {
    if (this.fail) throw new Error("stream unavailable");
    this.tools?.log.push(`journal ${entry.command}`);
    this.entries.push(entry);
  }
}
