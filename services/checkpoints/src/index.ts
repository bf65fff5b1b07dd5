/** The checkpoints service's public surface for other packages and tests. */
export { CheckpointService } from "./checkpoint-service.js";
export { createCheckpointContext, type CheckpointContext } from "./checkpoint-context.js";
export { loadCheckpointConfig, CheckpointConfigSchema, defaultExcludes, type CheckpointConfig } from "./config.js";
export { checkpointEndpoints } from "./endpoints.js";
export { shadowGitdir } from "./shadow-repo.js";
