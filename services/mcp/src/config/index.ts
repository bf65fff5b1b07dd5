export { mcpPaths, workspaceConfigName, type McpPaths } from "./mcp-paths.js";
export { readMcpConfig, readTrustFile } from "./read-mcp-config.js";
export { workspaceServers, digestOf, type WorkspaceServers } from "./workspace-config.js";
export { formatIssues } from "./format-issues.js";
