import type { Strategy } from "./strategy.js";

/**
 * The line_edits strategy (with search_grammar, which spells replace_in_file's path and SEARCH
 * text): the grammar spells REPLACE as one line that starts with the chosen SEARCH line's own
 * indent, so every edit is a real one-line change of a line the file holds.
 */
export const lineEdits: Strategy = {
  setting: "line_edits",
  grammar(_context, shaping) {
    if (shaping.edits !== undefined) shaping.edits = { ...shaping.edits, one_line: true };
  },
};
