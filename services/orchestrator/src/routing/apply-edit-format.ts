import type { EditFormat, ToolDescriptor } from "@aide/contracts";

/** The one edit tool each restricted edit format offers. */
const EDIT_TOOL: Record<Exclude<EditFormat, "routed-v1">, string> = {
  "search-replace": "replace_in_file",
  "unified-diff": "apply_patch",
  "whole-file": "write_file",
};
const EDIT_TOOLS = new Set(Object.values(EDIT_TOOL));

/**
 * A run's edit format (an eval arm) over the routed tools: `routed-v1` (or none) keeps the router's
 * choice; the others replace every edit tool by their one, in catalog order, in Act mode (Plan
 * mode offers no edit tool). Each of the three can create a file (an empty SEARCH, a diff from
 * /dev/null, a whole file), so no format leaves the model unable to add one.
 */
export function applyEditFormat(selected: ToolDescriptor[], catalog: ToolDescriptor[], mode: "plan" | "act", format: EditFormat | undefined): ToolDescriptor[] {
  if (format === undefined || format === "routed-v1" || mode !== "act") return selected;
  const wanted = EDIT_TOOL[format];
  const kept = selected.filter((tool) => !EDIT_TOOLS.has(tool.name));
  const tool = catalog.find((candidate) => candidate.name === wanted);
  if (!tool) return kept;
  const position = catalog.indexOf(tool);
  const at = kept.findIndex((other) => {
    const index = catalog.indexOf(other);
    return index === -1 || index > position;
  });
  return at === -1 ? [...kept, tool] : [...kept.slice(0, at), tool, ...kept.slice(at)];
}
