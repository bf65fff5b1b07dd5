import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "../../../../tests/helpers/service-process.js";
import type { Stack } from "./stack.js";

export interface GatewayOnStack {
  process: ServiceProcess;
  url: string;
  token: string;
  /** One REST call with the bearer token: the status and the parsed body. */
  call(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** The real gateway process on a stack's bus (its own bus user), on an ephemeral loopback port. */
export async function startGatewayOnStack(stack: Stack, token = "0123456789abcdef0123456789abcdef"): Promise<GatewayOnStack> {
  const tokenFile = join(stack.dir, "gateway.token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const gateway = await startServiceProcess(stack.bus, "gateway", { env: { AIDE_GATEWAY_PORT: "0", AIDE_GATEWAY_TOKEN_FILE: tokenFile, AIDE_LOG_LEVEL: "info" }, pinger: stack.tester });
  for (let tries = 0; tries < 100 && !/"port":(\d+)/.test(gateway.logs()); tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const port = /"port":(\d+)/.exec(gateway.logs())?.[1];
  if (port === undefined) throw new Error(`the gateway logged no port: ${gateway.logs().slice(-2000)}`);
  const url = `http://127.0.0.1:${port}`;
  return {
    process: gateway,
    url,
    token,
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    },
  };
}
