export { parseToolCalls } from "./parse-tool-calls.js";
export type { ParsedToolCall, ParseError, ParseResult } from "./parse-tool-calls.js";
export { toParserSpecs } from "./tool-spec.js";
export type { ToolSpecForParser } from "./tool-spec.js";
