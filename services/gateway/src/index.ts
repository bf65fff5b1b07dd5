export { createGateway, gatewayRoutes, type Gateway, type GatewayOptions } from "./gateway.js";
export { gatewayConfigFromEnv, readTokenFile } from "./gateway-config.js";
export { buildOpenApiDocument } from "./openapi.js";
export { createReplayFilter } from "./replay-filter.js";
export { panelContentSecurityPolicy } from "./panel-routes.js";
