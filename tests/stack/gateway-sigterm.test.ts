import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { heldUpload } from "../../services/gateway/test/gateway-harness.js";
import { startStackProcess, type StackProcess } from "../helpers/stack-process.js";

/**
 * Issue 26 on the real stack: `aide up` (the gateway in its bubblewrap sandbox, its own PID
 * namespace), 20 REST requests held by their clients, SIGTERM to the gateway's process: every one
 * gets a 503 with Retry-After before its socket closes (all 20 were cut with no response before).
 */
describe("SIGTERM of the gateway of a running stack", () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-gw-sigterm-"));
  let stack: StackProcess | undefined;
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers each of 20 held requests 503 with Retry-After", async () => {
    const workspace = join(dir, "ws");
    mkdirSync(workspace);
    stack = await startStackProcess({ aideHome: join(dir, "aide"), args: ["--workspace", workspace], env: { AIDE_SHUTDOWN_GRACE_MS: "1000" } });
    const gatewayPid = stack.stack.services.gateway.pid as number;
    expect(gatewayPid).toBeGreaterThan(0);
    const uploads = Array.from({ length: 20 }, () => heldUpload(stack!.gatewayUrl, stack!.token, "/api/agent/start"));
    await Promise.all(uploads.map((upload) => upload.sent));
    // Answered after all 20 were sent: the gateway has read what came before it.
    expect((await fetch(`${stack.gatewayUrl}/api/openapi.json`, { headers: { authorization: `Bearer ${stack.token}` } })).status).toBe(200);

    process.kill(gatewayPid, "SIGTERM");
    const results = await Promise.all(uploads.map((upload) => upload.ended));
    for (const result of results) {
      expect(result.response, JSON.stringify(result)).toMatch(/^HTTP\/1\.1 503 /);
      expect(result.response).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(result.response).toMatch(/"code":"UNAVAILABLE"/);
    }
  }, 180_000);
});
