import type { Strategy } from "./strategy.js";

/** The lean_calls strategy: the grammar spells only each call's required parameters; the optional ones take their defaults. */
export const leanCalls: Strategy = {
  setting: "lean_calls",
  grammar(_context, shaping) {
    shaping.requiredOnly = true;
  },
};
