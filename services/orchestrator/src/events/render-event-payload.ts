import {
  mergeEscaped,
  renderUntrusted,
  renderUntrustedValue,
  type AgentEventPayload,
  type AgentEventType,
  type UntrustedCharacterKind,
} from "@aide/contracts";

type Escaped = Partial<Record<UntrustedCharacterKind, number>>;

/**
 * Fields kept raw because a machine needs them as they are: the approval's arguments (with the
 * argv), its command and diff (each also carried as `*_rendered`), and `paths` (`paths_rendered`).
 */
const rawApprovalFields = new Set(["args", "command", "diff", "paths", "args_digest"]);

/** Tokens are longer than the characters they show: the screen form of a diff is cut, with a marker. */
const maxRenderedDiffChars = 256_000;
function capRendered(text: string): string {
  if (text.length <= maxRenderedDiffChars) return text;
  return `${text.slice(0, maxRenderedDiffChars)}\n[… cut here for the screen: ${text.length - maxRenderedDiffChars} more characters]`;
}

function total(escaped: Escaped): number {
  return Object.values(escaped).reduce((sum, count) => sum + (count ?? 0), 0);
}

/** `approval.requested`: raw fields kept, their screen forms and the escape counts added. */
function renderApproval(payload: AgentEventPayload<"approval.requested">): AgentEventPayload<"approval.requested"> {
  const escaped: Escaped = {};
  const shown = (text: string) => {
    const rendered = renderUntrusted(text, { target: "screen" });
    mergeEscaped(escaped, rendered.escaped);
    return rendered.text;
  };
  const display: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (rawApprovalFields.has(key) || key.endsWith("_rendered") || key === "escapes") continue;
    const rendered = renderUntrustedValue(value);
    mergeEscaped(escaped, rendered.escaped);
    display[key] = rendered.value;
  }
  const out = {
    ...payload,
    ...display,
    ...(payload.command !== undefined ? { command_rendered: shown(payload.command) } : {}),
    ...(payload.diff !== undefined ? { diff_rendered: capRendered(shown(payload.diff)) } : {}),
    paths_rendered: (payload.paths ?? []).map(shown),
  };
  return { ...out, escapes: { count: total(escaped), kinds: escaped as Record<string, number> } } as AgentEventPayload<"approval.requested">;
}

/**
 * The screen form of an event's payload (step of the event sink, before validation): every string
 * that a terminal or the panel may show (summaries, prose, paths, results, error messages, the
 * arguments of `tool.started`) goes through `renderUntrusted`, so control sequences and invisible
 * characters travel as visible tokens. Pure; returns a new payload (a stored approval payload is
 * re-offered from its raw form and rendered again).
 */
export function renderEventPayload<T extends AgentEventType>(type: T, payload: AgentEventPayload<T>): AgentEventPayload<T> {
  if (type === "approval.requested") return renderApproval(payload as AgentEventPayload<"approval.requested">) as AgentEventPayload<T>;
  return renderUntrustedValue(payload).value as AgentEventPayload<T>;
}
