import { api, type Checkpoint } from "./api.js";
import { byId, el } from "./dom.js";
import { compareCheckpoints, fillComparePickers } from "./checkpoint-compare.js";
import { shown } from "./screen-text.js";

interface RestoreResult {
  plan: { modified: string[]; created_since: string[]; deleted_since: string[] };
  applied: boolean;
  truncated_messages: number;
}

/** The checkpoint timeline: compare (with the one before it, or any two), preview a restore (the plan), then confirm it. */
export async function renderTimeline(session: string): Promise<void> {
  const list = byId<HTMLOListElement>("timeline");
  const preview = byId<HTMLDivElement>("restore-preview");
  const { checkpoints } = await api<{ checkpoints: Checkpoint[] }>("GET", `/api/checkpoints?session=${encodeURIComponent(session)}`);
  list.replaceChildren(
    ...checkpoints.map((checkpoint) =>
      el("li", { attrs: { "data-checkpoint": checkpoint.id } }, [
        el("span", { className: "label", text: shown(checkpoint.label) }),
        el("span", { className: "meta", text: `${checkpoint.id.slice(0, 10)} · ${checkpoint.files_changed} files · ${checkpoint.created_at.slice(11, 19)}` }),
        el("span", { className: "timeline-actions" }, [
          el("button", { text: "Preview restore", attrs: { type: "button", "data-action": "preview" }, onClick: () => void showPreview(session, checkpoint, preview) }),
          el("button", {
            text: "Diff to now",
            attrs: { type: "button", "data-action": "compare-now", title: "Compare this checkpoint with the working tree" },
            onClick: () => void compareCheckpoints(session, checkpoint.id, "working-tree"),
          }),
        ]),
      ]),
    ),
  );
  fillComparePickers(checkpoints);
}

type RestoreMode = "files_and_task" | "files" | "task";
const modes: Array<[RestoreMode, string]> = [
  ["files_and_task", "Files and conversation"],
  ["files", "Files only"],
  ["task", "Conversation only"],
];

/**
 * The restore preview: the plan for the chosen mode (files and conversation, files only, or the
 * conversation only, as Cline offers), then Confirm applies exactly that (same mode).
 */
async function showPreview(session: string, checkpoint: Checkpoint, preview: HTMLDivElement, mode: RestoreMode = "files_and_task"): Promise<void> {
  const result = await api<RestoreResult>("POST", "/api/checkpoints/restore", { session, checkpoint: checkpoint.id, mode, confirm: false });
  const section = (label: string, paths: string[]) => [el("strong", { text: label }), el("ul", {}, paths.length ? paths.map((p) => el("li", { text: shown(p) })) : [el("li", { text: "none" })])];
  const status = el("p", { className: "restore-status" });
  const chooser = el(
    "select",
    { attrs: { "aria-label": "What to restore", "data-action": "restore-mode" } },
    modes.map(([value, label]) => el("option", { text: label, attrs: { value } })),
  );
  chooser.value = mode;
  chooser.addEventListener("change", () => void showPreview(session, checkpoint, preview, chooser.value as RestoreMode));
  preview.hidden = false;
  preview.replaceChildren(
    el("p", { text: `Restore ${checkpoint.id.slice(0, 10)} (${shown(checkpoint.label)})?` }),
    el("label", { className: "restore-mode" }, ["Restore ", chooser]),
    ...(mode === "task"
      ? [el("p", { text: "The files stay as they are; the conversation goes back to this checkpoint." })]
      : [...section("Modified", result.plan.modified), ...section("Removed (created since)", result.plan.created_since), ...section("Brought back (deleted since)", result.plan.deleted_since)]),
    ...(mode === "files" ? [] : [el("p", { className: "meta", text: "Later messages of the conversation are dropped." })]),
    el("button", {
      text: "Show what it undoes",
      attrs: { type: "button", "data-action": "preview-diff", title: "The diff from this checkpoint to the working tree" },
      onClick: () => void compareCheckpoints(session, checkpoint.id, "working-tree"),
    }),
    " ",
    el("button", {
      className: "danger",
      text: "Confirm restore",
      attrs: { type: "button", "data-action": "confirm-restore" },
      onClick: async () => {
        try {
          const applied = await api<RestoreResult>("POST", "/api/checkpoints/restore", { session, checkpoint: checkpoint.id, mode, confirm: true });
          status.textContent = applied.applied
            ? `Restored ${checkpoint.id.slice(0, 10)}${applied.truncated_messages ? ` (${applied.truncated_messages} later messages dropped)` : ""}.`
            : "Not applied.";
        } catch (error) {
          status.textContent = shown((error as Error).message);
        }
      },
    }),
    status,
  );
}
