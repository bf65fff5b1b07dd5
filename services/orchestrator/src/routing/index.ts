export { classifyIntents, INTENTS } from "./classify-intents.js";
export type { Intent } from "./classify-intents.js";
export { selectTools, CORE_ACT_TOOLS, SWITCH_TO_ACT_MODE_TOOL } from "./select-tools.js";
export { applyEditFormat } from "./apply-edit-format.js";
