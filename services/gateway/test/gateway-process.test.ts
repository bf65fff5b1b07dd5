import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess } from "../../../tests/helpers/service-process.js";
import { until } from "./gateway-harness.js";

let bus: TestBus;
const dir = mkdtempSync(join(tmpdir(), "aide-gw-"));
beforeAll(async () => {
  bus = await startTestBus();
});
afterAll(async () => bus?.stop());

describe("the gateway process (services/gateway/dist/main.js)", () => {
  it("refuses to start when the token file is group/world-readable or missing", async () => {
    const loose = join(dir, "loose.token");
    writeFileSync(loose, "0123456789abcdef0123456789abcdef\n");
    chmodSync(loose, 0o644);
    await expect(startServiceProcess(bus, "gateway", { env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: loose }, readyTimeoutMs: 60_000 })).rejects.toThrow(/must be 0600/);
    await expect(startServiceProcess(bus, "gateway", { env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: join(dir, "missing") }, readyTimeoutMs: 60_000 })).rejects.toThrow(/does not exist/);
  });

  it("listens on 127.0.0.1 on an ephemeral port, logs it, answers $SRV.PING, and serves with the token", async () => {
    const tokenFile = join(dir, "gateway.token");
    writeFileSync(tokenFile, "0123456789abcdef0123456789abcdef\n", { mode: 0o600 });
    const gateway = await startServiceProcess(bus, "gateway", { env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile } });
    try {
      const port = await until(() => /"port":(\d+)/.exec(gateway.logs())?.[1], "the port in the log");
      expect(gateway.logs()).toContain(`"url":"http://127.0.0.1:${port}"`);
      expect(gateway.logs()).not.toContain("0123456789abcdef0123456789abcdef");
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { authorization: "Bearer 0123456789abcdef0123456789abcdef" } });
      expect(ok.status).toBe(200);
      expect((await ok.json()).services.gateway).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(401);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });
});
