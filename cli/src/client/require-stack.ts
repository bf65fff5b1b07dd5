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

/** What a person at the terminal can do next, for the codes whose message speaks of the API. */
function nextStep(code: string | undefined, error: unknown): string {
  if (code !== "WORKSPACE_BUSY") return "";
  // The gateway's envelope carries code and message only; the catalog's template names the session.
  const session = /: session ([\w-]+);/.exec((error as Error).message)?.[1];
  return session ? `\n  follow it: aide events --session ${session}; run again when it has ended` : "";
}

export function reportError(error: unknown): number {
  const code = (error as { code?: string }).code;
  // An error message can quote untrusted text (a path, a command): shown rendered.
  process.stderr.write(renderForScreen(`aide: ${code ? code + ": " : ""}${(error as Error).message}${nextStep(code, error)}`) + "\n");
  return 1;
}
