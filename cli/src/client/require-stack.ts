import { renderForScreen } from "@aide/contracts";
import { createGatewayClient, type GatewayClient } from "./gateway-client.js";
import { findStack, stackFilePath } from "./stack-discovery.js";

/** For commands that need a running stack and do not start one. */
export function requireStack(): GatewayClient | undefined {
  const connection = findStack();
  if (!connection) {
    process.stderr.write(`aide: no running stack (${stackFilePath()} is missing or stale); start one with \`aide up\`\n`);
    return undefined;
  }
  return createGatewayClient(connection);
}

export function reportError(error: unknown): number {
  const code = (error as { code?: string }).code;
  // An error message can quote untrusted text (a path, a command): shown rendered.
  process.stderr.write(renderForScreen(`aide: ${code ? code + ": " : ""}${(error as Error).message}`) + "\n");
  return 1;
}
