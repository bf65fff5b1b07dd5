export * from "./model-spec.js";
export * from "./registry.js";
export * from "./provider.js";
export * from "./scripted-provider.js";
export * from "./model-engine.js";
export * from "./in-flight.js";
export * from "./endpoints.js";
export * from "./providers.js";
