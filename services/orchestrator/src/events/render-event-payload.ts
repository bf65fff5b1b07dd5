import { renderUntrustedValue, type AgentEventPayload, type AgentEventType, type ApprovalRaw, type UntrustedCharacterKind } from "@aide/contracts";

type Escaped = Partial<Record<UntrustedCharacterKind, number>>;

/** Tokens are longer than the characters they show: the screen form of a diff is cut, with a marker. */
const maxRenderedDiffChars = 256_000;
function capRendered(text: string): string {
  if (text.length <= maxRenderedDiffChars) return text;
  return `${text.slice(0, maxRenderedDiffChars)}\n[… cut here for the screen: ${text.length - maxRenderedDiffChars} more characters]`;
}

function total(escaped: Escaped): number {
  return Object.values(escaped).reduce((sum, count) => sum + (count ?? 0), 0);
}

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/**
 * The raw bytes behind the approval's command, diff, paths and args, only where their screen form
 * differs (base64, so no viewer prints them): what runs is the raw, what is shown its rendering.
 */
function rawOf(raw: AgentEventPayload<"approval.requested">, shown: AgentEventPayload<"approval.requested">): ApprovalRaw | undefined {
  const out: ApprovalRaw = {};
  if (raw.command !== undefined && raw.command !== shown.command) out.command = base64(raw.command);
  if (raw.diff !== undefined && raw.diff !== shown.diff) out.diff = base64(raw.diff);
  const paths = raw.paths ?? [];
  if (paths.some((path, index) => path !== shown.paths?.[index])) out.paths = paths.map(base64);
  const argsJson = JSON.stringify(raw.args ?? {});
  if (argsJson !== JSON.stringify(shown.args ?? {})) out.args_json = base64(argsJson);
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * `approval.requested`: like every event, all strings rendered (one pass each), plus the counts of
 * what was replaced and, where a field changed, its raw bytes under `raw_base64`. Rendering a stored
 * raw payload again (a re-offer) gives the same event.
 */
function renderApproval(payload: AgentEventPayload<"approval.requested">): AgentEventPayload<"approval.requested"> {
  const { escapes: _escapes, raw_base64: _raw, args, ...source } = payload;
  const rendered = renderUntrustedValue(source);
  // The arguments repeat the command and paths: rendered too, not counted twice.
  const shown = { ...(rendered.value as Omit<AgentEventPayload<"approval.requested">, "args">), args: renderUntrustedValue(args).value } as AgentEventPayload<"approval.requested">;
  if (shown.diff !== undefined) shown.diff = capRendered(shown.diff);
  const raw = rawOf(payload, shown);
  return { ...shown, escapes: { count: total(rendered.escaped), kinds: rendered.escaped as Record<string, number> }, ...(raw ? { raw_base64: raw } : {}) };
}

/**
 * The screen form of an event's payload (step of the event sink, before validation): every string
 * of every event (summaries, prose, paths, results, error messages, arguments, the approval's
 * command and diff) goes through `renderUntrusted` once, so control sequences and invisible
 * characters travel as visible tokens. Raw bytes travel only in `approval.requested`'s
 * `raw_base64`. Pure; returns a new payload (a stored approval payload is re-offered from its raw
 * form and rendered again).
 */
export function renderEventPayload<T extends AgentEventType>(type: T, payload: AgentEventPayload<T>): AgentEventPayload<T> {
  if (type === "approval.requested") return renderApproval(payload as AgentEventPayload<"approval.requested">) as AgentEventPayload<T>;
  return renderUntrustedValue(payload).value as AgentEventPayload<T>;
}
