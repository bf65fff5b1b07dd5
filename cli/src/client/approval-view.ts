import { renderDiff, revealInvisible, type Style } from "./terminal-style.js";

export interface ApprovalPayload {
  approval: string;
  tool: string;
  args?: Record<string, unknown>;
  diff?: string;
  command?: string;
  paths?: string[];
  protected?: Array<{ path: string; reason: string }>;
  invisible?: Array<{ path?: string; line: number; codepoint: string; kind: string }>;
  network?: "none" | "consent_required" | "forbidden";
  model_hint?: string;
  /** The checkpoint before this call could not be taken: retry, proceed without, or stop. */
  checkpoint_failed?: { code: string; message: string };
  /** Workspace-defined code the command runs (package scripts, make recipes…). */
  scripts?: Array<{ source: string; name: string; text: string }>;
}

/** What a person must see before deciding: the diff or command, and the warnings, loudly. */
export function describeApproval(payload: ApprovalPayload, style: Style): string {
  const lines = [style.bold(style.yellow(`? approval ${payload.approval}: ${payload.tool}`)) + (payload.paths?.length ? ` ${payload.paths.join(", ")}` : "")];
  for (const flag of payload.protected ?? []) {
    lines.push(style.inverse(style.red(" PROTECTED PATH ")) + " " + style.red(`${flag.path}: ${flag.reason}`));
  }
  for (const flag of (payload.invisible ?? []).slice(0, 20)) {
    const where = `${flag.path ?? "the command"}${flag.line ? ` line ${flag.line}` : ""}`;
    lines.push(style.inverse(style.red(" INVISIBLE CHARACTER ")) + " " + style.red(`${flag.codepoint} (${flag.kind}) in ${where}`));
  }
  if (payload.checkpoint_failed) lines.push(style.inverse(style.red(" NO CHECKPOINT ")) + " " + style.red(`no checkpoint could be taken: ${payload.checkpoint_failed.message} (${payload.checkpoint_failed.code})`));
  if (payload.network === "consent_required") lines.push(style.inverse(style.yellow(" NETWORK ")) + " this command may use the network");
  if (payload.command) lines.push(style.bold("$ ") + revealInvisible(payload.command));
  for (const script of payload.scripts ?? []) lines.push(style.yellow(`runs ${script.name} from ${script.source}:`) + "\n" + revealInvisible(script.text));
  if (payload.diff) lines.push(renderDiff(revealInvisible(payload.diff), style));
  if (!payload.command && !payload.diff && payload.args) lines.push(style.dim(JSON.stringify(payload.args).slice(0, 2000)));
  if (payload.model_hint) lines.push(style.dim(`model's note (not an authorization): ${payload.model_hint}`));
  return lines.join("\n");
}
