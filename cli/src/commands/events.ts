import { connect } from "nats";
import { AgentEventSchema, countEscapeTokens, escapeWarning, jsonForScreen, renderForScreen, type AgentEvent } from "@aide/contracts";
import { readCredentialsFile } from "@aide/runtime";
import { aideHome } from "../supervisor/aide-home.js";
import { readStackFile } from "../supervisor/stack-file.js";

/**
 * One line per event: time, session, seq, type, and the part of the payload a person scans for,
 * rendered for the screen (control and invisible characters as tokens, whatever the orchestrator
 * did), with a loud note when any character is shown as a token.
 */
export function formatEvent(event: AgentEvent): string {
  const time = event.ts.slice(11, 23);
  const head = `${time} ${event.session.slice(0, 12).padEnd(12)} #${String(event.seq).padStart(4)} ${"  ".repeat(event.depth)}${event.type.padEnd(20)}`;
  const line = renderForScreen(`${head} ${summarize(event)}`.trimEnd());
  const count = countEscapeTokens(line);
  return count > 0 ? `${line}  ${escapeWarning(count)}` : line;
}

function summarize(event: AgentEvent): string {
  switch (event.type) {
    case "run.created":
      return `${event.payload.mode} "${clip(event.payload.task)}" in ${event.payload.workspace} with ${event.payload.model}${event.payload.unsandboxed_services ? " (services unsandboxed)" : ""}`;
    case "run.state":
      return event.payload.state === "paused" ? `paused (${event.payload.reason ?? "?"}): ${clip(event.payload.detail ?? "")}` : event.payload.state;
    case "context.built":
      return `${event.payload.messages} messages, ${event.payload.chars} chars, ${event.payload.dropped} dropped${event.payload.compacted ? ", compacted" : ""}`;
    case "model.requested":
      return `${event.payload.model} (iteration ${event.payload.iteration})`;
    case "model.delta":
      return JSON.stringify(event.payload.text);
    case "model.responded":
      return `${event.payload.tool_calls} call(s), ${event.payload.prompt_tokens}+${event.payload.completion_tokens} tokens, ${Math.round(event.payload.duration_ms)} ms: ${clip(event.payload.text)}`;
    case "tool.started":
      return `${event.payload.tool} ${clip(JSON.stringify(event.payload.args))}`;
    case "tool.completed":
      return `${event.payload.tool} ${event.payload.is_error ? "ERROR" : "ok"} ${Math.round(event.payload.duration_ms)} ms: ${clip(event.payload.summary)}`;
    case "tool.batch_limited":
      return `${event.payload.requested} calls requested, ${event.payload.executed} executed`;
    case "approval.requested":
      return `${event.payload.approval}: ${event.payload.tool} ${clip(event.payload.command ?? event.payload.paths.join(", "), 200)}${event.payload.protected.length ? " [PROTECTED]" : ""}${event.payload.invisible.length ? " [INVISIBLE CHARACTERS]" : ""}${event.payload.mcp?.hidden_characters ? " [MCP SERVER WITH HIDDEN CHARACTERS]" : ""}${event.payload.network !== "none" ? ` [network: ${event.payload.network}]` : ""}`;
    case "approval.decided":
      return `${event.payload.approval}: ${event.payload.decision}${event.payload.feedback ? ` "${clip(event.payload.feedback)}"` : ""}`;
    case "checkpoint.created":
      return `${event.payload.checkpoint.slice(0, 10)} ${event.payload.label} (${event.payload.files_changed} files, ${Math.round(event.payload.duration_ms)} ms)`;
    case "checkpoint.failed":
      return `${event.payload.error.code}: ${event.payload.error.message}`;
    case "checkpoint.restored":
      return `${event.payload.checkpoint.slice(0, 10)} ${event.payload.mode}`;
    case "completion.rejected":
      return `attempt ${event.payload.attempt}, missing ${event.payload.missing.join(", ")}`;
    case "completion.unverified":
      return `missing ${event.payload.missing.join(", ")}`;
    case "agent.spawned":
      return `${event.payload.role}: ${clip(event.payload.task)}${event.payload.write ? " (write)" : ""}`;
    case "agent.completed":
      return `${event.payload.state}: ${clip(event.payload.result)}`;
    case "message.received":
      return clip(event.payload.text);
    case "mode.changed":
      return event.payload.mode;
    case "model.probing":
      return `${event.payload.model}: ${event.payload.stage} ${Math.round(event.payload.percent)} % (${Math.round(event.payload.elapsed_ms / 1000)} s)`;
    case "session.auto_approve_changed":
      return `edits ${event.payload.auto_approve.edits ? "on" : "off"}; commands: ${event.payload.auto_approve.commands.map((rule) => clip(rule, 60)).join(", ") || "none"}`;
    case "plan.updated":
      return event.payload.items.map((item) => `[${item.status === "completed" ? "x" : item.status === "in_progress" ? ">" : " "}] ${item.step}`).join(" ");
    case "memory.loaded":
      return event.payload.memories.map((memory) => `[${memory.author}] ${clip(memory.text, 60)}`).join(" ");
    case "instructions.loaded":
      return event.payload.files.map((file) => `${file.path} (${file.tokens} tokens${file.truncated ? ", cut" : ""}, ${file.source})`).join(", ");
    case "instructions.skipped":
      return event.payload.files.map((file) => `${file.path} (${file.reason.replace(/_/g, " ")})`).join(", ");
    case "run.completed":
      return `${event.payload.state.toUpperCase()}: ${clip(event.payload.result)}`;
    case "run.failed":
      return `${event.payload.error.code}: ${event.payload.error.message}`;
    case "run.cancelled":
      return event.payload.reason;
    default: {
      const unreachable: never = event;
      return JSON.stringify(unreachable);
    }
  }
}

function clip(text: string, max = 100): string {
  // Rendered before whitespace is flattened, so a line separator or BOM is shown, not made a space.
  const flat = renderForScreen(text)
    .replace(/[ \t\n\r\f\v]+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export async function run(values: { session?: string; json?: boolean; deltas?: boolean; all?: boolean }): Promise<number> {
  const home = aideHome();
  const stack = readStackFile(home.stackFile);
  const url = process.env.AIDE_NATS_URL ?? stack?.nats_url;
  const credsPath = process.env.AIDE_NATS_CREDS ?? stack?.observer_credentials;
  if (!url) {
    process.stderr.write("aide events: no running stack (start one with 'aide up'), and AIDE_NATS_URL is not set\n");
    return 1;
  }
  const creds = credsPath ? readCredentialsFile(credsPath) : undefined;
  // The stack's own bus is TLS with its per-stack CA; an external one, when AIDE_NATS_CA names its CA.
  const caFile = process.env.AIDE_NATS_CA ?? (process.env.AIDE_NATS_URL ? undefined : stack?.nats_ca);
  const connection = await connect({ servers: url, user: creds?.user, pass: creds?.password, name: "aide-events", ...(caFile ? { tls: { caFile } } : {}) });
  const subject = values.all ? "agent.>" : values.session ? `agent.evt.${values.session}.>` : "agent.evt.>";
  process.stderr.write(`watching ${subject} on ${url} (Ctrl-C to stop)\n`);
  const subscription = connection.subscribe(subject);
  const stop = () => {
    subscription.unsubscribe();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const decoder = new TextDecoder();
  for await (const message of subscription) {
    const text = decoder.decode(message.data);
    if (values.json) {
      process.stdout.write(jsonForScreen(text) + "\n");
      continue;
    }
    let parsed;
    try {
      parsed = AgentEventSchema.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      process.stdout.write(`${renderForScreen(message.subject)} ${renderForScreen(text.slice(0, 200))}\n`);
      continue;
    }
    if (parsed.data.type === "model.delta" && !values.deltas) continue;
    process.stdout.write(formatEvent(parsed.data) + "\n");
  }
  await connection.close();
  return 0;
}
