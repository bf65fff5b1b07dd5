import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess } from "../../../tests/helpers/service-process.js";
import { until } from "./gateway-harness.js";

const token = "0123456789abcdef0123456789abcdef";
const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

/** GET over HTTPS to 127.0.0.1 with a chosen Host header, trusting the test's certificate. */
function httpsGet(port: number, host: string, ca: Buffer, path = "/api/health"): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", servername: "aide.test", port, path, ca, headers: { host, authorization: `Bearer ${token}` } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Issue 14 item 4: the gateway on a non-loopback address only with TLS and a Host allow-list. */
describe.skipIf(!hasOpenssl)(`the gateway's bind address${hasOpenssl ? "" : " [SKIPPED: openssl is not installed]"}`, () => {
  let bus: TestBus;
  let dir: string;
  let tokenFile: string;
  let certFile: string;
  let keyFile: string;
  beforeAll(async () => {
    bus = await startTestBus();
    dir = mkdtempSync(join(tmpdir(), "aide-gw-tls-"));
    tokenFile = join(dir, "gateway.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    certFile = join(dir, "cert.pem");
    keyFile = join(dir, "key.pem");
    const made = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        keyFile,
        "-out",
        certFile,
        "-days",
        "2",
        "-subj",
        "/CN=aide.test",
        "-addext",
        "subjectAltName=DNS:aide.test,IP:127.0.0.1",
      ],
      { encoding: "utf8" },
    );
    expect(made.status, made.stderr).toBe(0);
    chmodSync(keyFile, 0o600);
  });
  afterAll(async () => {
    await bus?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = () => ({ AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_GATEWAY_HOST: "0.0.0.0" });

  it("refuses 0.0.0.0 without TLS, and with TLS but no Host allow-list, with GATEWAY_EXPOSURE_REFUSED", async () => {
    await expect(startServiceProcess(bus, "gateway", { env: { ...base(), AIDE_GATEWAY_ALLOWED_HOSTS: "aide.test" }, readyTimeoutMs: 30_000 })).rejects.toThrow(
      /needs TLS \(AIDE_GATEWAY_TLS_CERT[\s\S]*"code":"GATEWAY_EXPOSURE_REFUSED"/,
    );
    await expect(startServiceProcess(bus, "gateway", { env: { ...base(), AIDE_GATEWAY_TLS_CERT: certFile, AIDE_GATEWAY_TLS_KEY: keyFile }, readyTimeoutMs: 30_000 })).rejects.toThrow(
      /needs a Host allow-list \(AIDE_GATEWAY_ALLOWED_HOSTS\)[\s\S]*"code":"GATEWAY_EXPOSURE_REFUSED"/,
    );
  });

  it("with TLS and an allow-list serves HTTPS on every interface, accepting only the listed Host names", async () => {
    const gateway = await startServiceProcess(bus, "gateway", { env: { ...base(), AIDE_GATEWAY_TLS_CERT: certFile, AIDE_GATEWAY_TLS_KEY: keyFile, AIDE_GATEWAY_ALLOWED_HOSTS: "aide.test" } });
    try {
      const port = Number(await until(() => /"port":(\d+)/.exec(gateway.logs())?.[1], "the port in the log"));
      expect(gateway.logs()).toContain(`"url":"https://aide.test:${port}"`);
      const ca = readFileSync(certFile);
      const allowed = await httpsGet(port, `aide.test:${port}`, ca);
      expect(allowed.status).toBe(200);
      expect(allowed.body.services.gateway).toBe(true);
      const rebound = await httpsGet(port, `evil.example:${port}`, ca);
      expect(rebound.status).toBe(403);
      expect(rebound.body.error.code).toBe("FORBIDDEN_HOST");
      // Plain HTTP is not served on that port.
      await expect(fetch(`http://127.0.0.1:${port}/api/health`, { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow();
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });
});
