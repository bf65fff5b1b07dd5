export { wrapToolResult, neutralizeTags } from "./wrap-tool-result.js";
export type { ToolResultForModel } from "./wrap-tool-result.js";
