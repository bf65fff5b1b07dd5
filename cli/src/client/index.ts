export { createGatewayClient, type GatewayClient, type GatewayConnection } from "./gateway-client.js";
export { GatewayError } from "./gateway-error.js";
export { openEventStream } from "./event-stream.js";
export { findStack, startStack, stackFilePath } from "./stack-discovery.js";
export { followSession } from "./follow-session.js";
