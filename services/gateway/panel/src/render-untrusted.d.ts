/**
 * The one rendering of untrusted text, from `contracts/` (pure, no imports): the gateway serves
 * its compiled module as `/panel/render-untrusted.js`, so the panel runs the same code as the
 * orchestrator and the CLI instead of a copy.
 */
export * from "../../../../contracts/dist/render-untrusted.js";
