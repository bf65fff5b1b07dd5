import { api, type Checkpoint } from "./api.js";
import { diffView } from "./diff-view.js";
import { byId, el } from "./dom.js";
import { shown } from "./screen-text.js";

interface FileDiff {
  path: string;
  status: "added" | "modified" | "deleted";
  binary: boolean;
  diff?: string;
  truncated?: boolean;
}

const workingTree = "working-tree";

/** Fills the two pickers of the compare form: any checkpoint, and (for "to") also the working tree. */
export function fillComparePickers(checkpoints: Checkpoint[]): void {
  const from = byId<HTMLSelectElement>("compare-from");
  const to = byId<HTMLSelectElement>("compare-to");
  const option = (c: Checkpoint) => el("option", { text: `${c.id.slice(0, 8)} ${shown(c.label)}`, attrs: { value: c.id } });
  const keep = [from.value, to.value];
  from.replaceChildren(...checkpoints.map(option));
  to.replaceChildren(el("option", { text: "working tree", attrs: { value: workingTree } }), ...checkpoints.map(option));
  if (checkpoints.some((c) => c.id === keep[0])) from.value = keep[0];
  if (keep[1] === workingTree || checkpoints.some((c) => c.id === keep[1])) to.value = keep[1];
  byId("compare-form").hidden = checkpoints.length === 0;
}

/** The diff between two checkpoints (or one and the working tree) as the panel's diff view, with what it could not show listed. */
export async function checkpointDiff(session: string, from: string, to: string): Promise<HTMLElement> {
  const query = `/api/checkpoints/diff?session=${encodeURIComponent(session)}&from=${from}${to === workingTree ? "" : `&to=${to}`}`;
  const result = await api<{ files: FileDiff[]; omitted?: number }>("GET", query);
  const text = result.files
    .filter((f) => f.diff !== undefined && !f.binary)
    .map((f) => shown(f.diff).replace(/\n?$/, "\n"))
    .join("");
  const notes = result.files
    .filter((f) => f.binary || f.truncated || f.diff === undefined)
    .map((f) => el("li", { text: `${shown(f.path)} (${f.status}${f.binary ? ", binary" : ""}${f.truncated ? ", diff cut to fit" : ""})` }));
  if (result.omitted) notes.push(el("li", { text: `${result.omitted} more changed files left out (too large to send)` }));
  return el("div", { className: "checkpoint-diff", attrs: { "data-files": String(result.files.length) } }, [
    ...(result.files.length === 0 ? [el("p", { text: "No changes." })] : []),
    ...(text ? [diffView(text)] : []),
    ...(notes.length ? [el("ul", { className: "compare-notes" }, notes)] : []),
  ]);
}

/**
 * Compares two checkpoints, or a checkpoint and the working tree (`GET /api/checkpoints/diff`), in
 * the panel's one diff view; binary, truncated and omitted files are said, not hidden.
 */
export async function compareCheckpoints(session: string, from: string, to: string): Promise<void> {
  const view = byId("compare");
  const title = `Changes from ${from.slice(0, 8)} to ${to === workingTree ? "the working tree" : to.slice(0, 8)}`;
  view.hidden = false;
  view.replaceChildren(el("p", { text: `${title}: loading…` }));
  try {
    const diff = await checkpointDiff(session, from, to);
    const close = el("button", { text: "Close", attrs: { type: "button", "data-action": "close-compare" }, onClick: () => ((view.hidden = true), view.replaceChildren()) });
    view.replaceChildren(el("div", { className: "compare-head" }, [el("h2", { text: `${title} · ${diff.dataset.files} files` }), close]), diff);
    view.scrollIntoView({ block: "start" });
  } catch (error) {
    view.replaceChildren(el("p", { className: "error", text: `${title}: ${shown((error as Error).message)}` }));
  }
}
