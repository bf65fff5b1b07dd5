export { classifyNetwork } from "./classify-network.js";
export type { ClassifyNetworkOptions, NetworkClassification } from "./classify-network.js";
export type { NetworkLevel } from "./network-rules.js";
export { parseShell } from "./shell-words.js";
export type { ShellParse, Pipeline, SimpleCommand } from "./shell-words.js";
export { effectiveCommand, commandBaseName } from "./command-words.js";
export type { EffectiveCommand } from "./command-words.js";
