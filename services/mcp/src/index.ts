export { jsonSchemaToZod, type Converted } from "./schema/json-schema-to-zod.js";
export { formatCallResult, maxOutputChars } from "./servers/format-call-result.js";
export * from "./config/index.js";
