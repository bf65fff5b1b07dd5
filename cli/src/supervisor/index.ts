/** The supervisor's public surface (for benchmarks and tests that launch services like `aide up`). */
export { Supervisor, type SupervisorOptions, type StackInfo } from "./supervisor.js";
export { sandboxProfiles, type SandboxProfile } from "./sandbox-profiles.js";
export { aideHome, installRoot } from "./aide-home.js";
