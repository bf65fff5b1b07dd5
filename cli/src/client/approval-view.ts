import { commandRuleWithDigest, countEscapeTokens, escapeWarning, mcpHiddenCharactersWarning, mergeEscaped, renderUntrusted, type UntrustedCharacterKind } from "@aide/contracts";
import { renderDiff, type Style } from "./terminal-style.js";

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
  escapes?: { count: number; kinds?: Record<string, number> };
  /** Workspace-defined code the command runs (package scripts, make recipes…). */
  scripts?: Array<{ source: string; name: string; text: string }>;
  /** The digest of those scripts: the allow rule `<command> sha256:<digest>` covers the command while they stay as shown. */
  scripts_digest?: string;
  /** A package install's `--ignore-scripts` form, which may be approved instead (the decision's `alternative`). */
  alternative?: { id: "ignore_scripts"; command: string; rule: string; note: string };
  /** An MCP call: its server, and the hidden characters its tool descriptions held. */
  mcp?: { server: string; tool: string; arguments_json?: string; hidden_characters?: number };
  /** What is approved when not an ordinary tool call (memory, secret_read, mode_switch, instructions). */
  kind?: string;
  /** For `kind: instructions`: the project instructions file (its text rendered by the orchestrator). */
  instructions?: { path: string; text: string; tokens: number; bytes: number; digest: string; changed: boolean; budget_tokens: number; truncated: boolean };
}

/**
 * The approval as a screen may show it: the orchestrator's renderings (every primary field is one),
 * rendered again here (a client does not trust that they were; `raw_base64` is never shown); and how many
 * characters are shown as tokens (the orchestrator's count, or the tokens seen, whichever is more).
 */
export function approvalScreenText(payload: ApprovalPayload) {
  const escaped: Partial<Record<UntrustedCharacterKind, number>> = {};
  const show = (text: unknown) => {
    const rendered = renderUntrusted(String(text));
    mergeEscaped(escaped, rendered.escaped);
    return rendered.text;
  };
  const view = {
    tool: show(payload.tool),
    paths: (payload.paths ?? []).map(show),
    command: payload.command !== undefined ? show(payload.command) : undefined,
    diff: payload.diff !== undefined ? show(payload.diff) : undefined,
    args: payload.args ? show(JSON.stringify(payload.args).slice(0, 2000)) : undefined,
    protected: (payload.protected ?? []).map((flag) => ({ path: show(flag.path), reason: show(flag.reason) })),
    invisible: (payload.invisible ?? [])
      .slice(0, 20)
      .map((flag) => ({ path: flag.path === undefined ? undefined : show(flag.path), line: flag.line, codepoint: show(flag.codepoint), kind: show(flag.kind) })),
    hint: payload.model_hint === undefined ? undefined : show(payload.model_hint),
    scripts: (payload.scripts ?? []).map((script) => ({ source: show(script.source), name: show(script.name), text: show(script.text) })),
  };
  const shownText = [view.tool, ...view.paths, view.command ?? "", view.diff ?? "", view.hint ?? "", ...view.scripts.map((script) => script.text)].join("\n");
  const count = Math.max(payload.escapes?.count ?? 0, countEscapeTokens(shownText));
  const kinds = payload.escapes?.kinds && Object.keys(payload.escapes.kinds).length > 0 ? payload.escapes.kinds : escaped;
  return { ...view, escapes: { count, kinds } };
}

/** What a person must see before deciding: the diff or command, and the warnings, loudly. */
export function describeApproval(payload: ApprovalPayload, style: Style): string {
  const view = approvalScreenText(payload);
  const lines = [style.bold(style.yellow(`? approval ${renderUntrusted(String(payload.approval)).text}: ${view.tool}`)) + (view.paths.length ? ` ${view.paths.join(", ")}` : "")];
  if (view.escapes.count > 0) lines.push(style.inverse(style.red(` ${escapeWarning(view.escapes.count, view.escapes.kinds)} `)));
  for (const flag of view.protected) {
    lines.push(style.inverse(style.red(" PROTECTED PATH ")) + " " + style.red(`${flag.path}: ${flag.reason}`));
  }
  for (const flag of view.invisible) {
    const where = `${flag.path ?? "the command"}${flag.line ? ` line ${flag.line}` : ""}`;
    lines.push(style.inverse(style.red(" INVISIBLE CHARACTER ")) + " " + style.red(`${flag.codepoint} (${flag.kind}) in ${where}`));
  }
  if (payload.mcp?.hidden_characters)
    lines.push(style.inverse(style.red(" MCP SERVER ")) + " " + style.red(`${renderUntrusted(payload.mcp.server).text}: ${mcpHiddenCharactersWarning(payload.mcp.hidden_characters)}`));
  if (payload.checkpoint_failed)
    lines.push(
      style.inverse(style.red(" NO CHECKPOINT ")) +
        " " +
        style.red(`no checkpoint could be taken: ${renderUntrusted(payload.checkpoint_failed.message).text} (${renderUntrusted(payload.checkpoint_failed.code).text})`),
    );
  if (payload.network === "consent_required") lines.push(style.inverse(style.yellow(" NETWORK ")) + " this command may use the network: approve it with or without network access");
  if (payload.network === "forbidden") lines.push(style.inverse(style.yellow(" NO NETWORK ")) + " network use is forbidden for this command: it runs offline");
  // Every line of a multi-line command is marked as part of it, so its text cannot pass for the
  // prompt's own lines.
  if (view.command !== undefined)
    lines.push(
      view.command
        .split("\n")
        .map((line, index) => style.bold(index === 0 ? "$ " : "> ") + line)
        .join("\n"),
    );
  for (const script of view.scripts)
    lines.push(
      style.yellow(`runs ${script.name} from ${script.source}:`) +
        "\n" +
        script.text
          .split("\n")
          .map((line) => style.bold("| ") + line)
          .join("\n"),
    );
  const digest = payload.scripts_digest;
  if (view.command !== undefined && view.scripts.length > 0 && typeof digest === "string" && /^[0-9a-f]{64}$/.test(digest) && !view.command.includes("'")) {
    lines.push(style.dim(`to allow this command while its scripts stay as shown: --allow-command '${commandRuleWithDigest(view.command, digest)}'`));
  }
  if (payload.alternative !== undefined) {
    lines.push(style.yellow(`or without any lifecycle script: `) + style.bold(renderUntrusted(payload.alternative.command).text) + style.dim(` (${renderUntrusted(payload.alternative.note).text})`));
  }
  if (view.diff !== undefined) lines.push(renderDiff(view.diff, style));
  if (view.command === undefined && view.diff === undefined && view.args !== undefined) lines.push(style.dim(view.args));
  if (view.hint !== undefined) lines.push(style.dim(`model's note (not an authorization): ${view.hint}`));
  return lines.join("\n");
}
