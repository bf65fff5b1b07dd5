import { aideError, type AideError } from "@aide/contracts";

const loopbackHosts = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Host and Origin allow-lists (DNS rebinding; cross-site requests and WebSocket hijacking): the
 * Host must name a loopback host with the gateway's port; an Origin, when the client sends one,
 * must be `http://<that host>`. Non-browser clients (the CLI) send no Origin.
 */
export function createOriginPolicy(port: () => number) {
  const allowedHosts = () => loopbackHosts.map((host) => `${host}:${port()}`);
  return {
    allowedHosts,
    check(headers: { host?: string; origin?: string | string[] }): AideError | undefined {
      const host = (headers.host ?? "").toLowerCase();
      if (!allowedHosts().includes(host)) return aideError("FORBIDDEN_HOST", { host: JSON.stringify(host.slice(0, 200)) });
      const origin = headers.origin;
      if (origin === undefined) return undefined;
      const value = Array.isArray(origin) ? origin.join(",") : origin;
      if (!allowedHosts().some((allowed) => value === `http://${allowed}`)) {
        return aideError("FORBIDDEN_ORIGIN", { origin: JSON.stringify(value.slice(0, 200)) });
      }
      return undefined;
    },
  };
}
export type OriginPolicy = ReturnType<typeof createOriginPolicy>;
